// Where each file_mounts entry and the git workdir sit in a task YAML, paired with what the
// parser made of them: the CodeLens goes on the key's line, the hover covers key and value.
// No vscode import (unit-tested in plain Node). Entries the parser rejected are left out:
// their diagnostics say what is wrong.

import { Node, isMap, isScalar } from 'yaml';
import { parseTaskText, type FileMount, type GitWorkdir, type Task } from '../../core/task';
import { substituteEnvVars, substitutionValues } from '../../core/task/envs';
import { locate } from '../../core/task/positions';
import { parseYamlDocuments } from '../../core/task/yamlSource';
import { fileMountHoverText, fileMountLensText, gitWorkdirHoverText, gitWorkdirLensText, localWorkdirHoverText, localWorkdirLensText } from './mountText';
import { localPath } from '../../core/task/localPath';

export interface MountEntry {
  /** 0-based line and column of the key (the destination, or `workdir`). */
  line: number;
  col: number;
  /** Offsets [start, end) from the key's start to the value's end. */
  start: number;
  end: number;
  lens: string;
  /** Markdown. */
  hover: string;
}

type Dict = Record<string, unknown>;

/**
 * Every entry of every task in `text`, in document order. Never throws. With `base` (the
 * workspace folder holding the file, where a launch resolves relative paths) a local workdir
 * gets an entry too, naming the folder it resolves to.
 */
export function mountEntries(text: string, base?: string): MountEntry[] {
  try {
    const body = text.replace(/^\uFEFF/, '');
    const { tasks } = parseTaskText(body);
    if (!tasks.length) return [];
    const { docs, lines } = parseYamlDocuments(body);
    const out: MountEntry[] = [];
    for (const task of tasks) {
      const doc = docs[task.docIndex];
      if (!doc) continue;
      const entry = (keyNode: Node | null, valueNode: Node | null, lens: string, hover: string) => {
        const start = keyNode?.range?.[0];
        if (start === undefined) return;
        const end = valueNode?.range?.[1] ?? keyNode!.range![1];
        const pos = lines.linePos(start);
        out.push({ line: pos.line - 1, col: pos.col - 1, start, end, lens, hover });
      };
      const git = gitOf(task);
      const workdir = git && locate(doc, ['workdir']).pair;
      if (git && workdir) entry(workdir.key as Node, workdir.value as Node, gitWorkdirLensText(git), gitWorkdirHoverText(git));
      const local = base !== undefined && typeof task.workdir === 'string' ? locate(doc, ['workdir']).pair : undefined;
      if (local) {
        const resolved = localPath(task.workdir as string, base!);
        entry(local.key as Node, local.value as Node, localWorkdirLensText(resolved), localWorkdirHoverText(resolved, base!));
      }
      const mounts = locate(doc, ['file_mounts']).node;
      if (!isMap(mounts)) continue;
      const vars = substitutionValues(isDict(task.raw) ? task.raw : {});
      for (const pair of mounts.items) {
        if (!isScalar(pair.key) || typeof pair.key.value !== 'string') continue;
        const dst = substituteEnvVars(pair.key.value, vars);
        const mount: FileMount | undefined = Object.hasOwn(task.fileMounts, dst) ? task.fileMounts[dst] : undefined;
        if (mount) entry(pair.key, pair.value as Node | null, fileMountLensText(mount), fileMountHoverText(dst, mount));
      }
    }
    return out.sort((a, b) => a.start - b.start);
  } catch {
    // Lenses and hovers are decoration: a file the parser chokes on just gets none.
    return [];
  }
}

/** The entry whose key or value holds `offset`, if any. */
export function mountEntryAt(text: string, offset: number): MountEntry | undefined {
  return mountEntries(text).find((e) => offset >= e.start && offset < e.end);
}

function gitOf(task: Task): GitWorkdir | undefined {
  return typeof task.workdir === 'object' ? task.workdir : undefined;
}

function isDict(v: unknown): v is Dict {
  return !!v && typeof v === 'object' && !Array.isArray(v);
}
