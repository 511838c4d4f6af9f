// A managed job's local files — its workdir, local file_mounts sources, a named bucket's local
// source — copied to the controller when the job is submitted, and its tasks rewritten to name
// the copies. The controller launches each task on its own machine, maybe hours later after a
// preemption, when this machine is off or its files have changed; SkyPilot uploads them at
// `jobs launch` too. Paths resolve against `base` as a launch's do (the CLI's working directory,
// the editor's workspace folder). A job's copies live in one directory under the controller's
// workspace, `uploads/<token>/`; the controller removes it once the job has ended.
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { isMap, isSeq, parseDocument } from 'yaml';
import { parseTaskText, type Task } from '../task';
import { localPath } from '../task/localPath';
import { localUploadLines } from '../ops/taskPaths';
import { prepareForValidation, substituteEnvVars, substitutionValues } from '../task/envs';

/** Where a controller keeps the uploads of its jobs: under its workspace's managed-jobs files. */
export function uploadsRoot(controllerWorkspace: string): string {
  return path.posix.join(controllerWorkspace, '.skydeck', 'managed', 'uploads');
}

/** One local path and where its copy goes on the controller. */
export interface Upload {
  local: string;
  remote: string;
  /** A workdir: synced with the ignore rules a launch applies (.skyignore, .gitignore). */
  workdir: boolean;
}

export interface CarryPlan {
  /** The tasks, naming the copies instead of local paths. */
  tasks: string[];
  uploads: Upload[];
  /** The job's upload directory on the controller (undefined: nothing to carry). */
  dir?: string;
  /** What relative paths were resolved against (for messages). */
  base?: string;
}

/** The tasks recorded as they are: nothing to copy. */
export const noCarry = (tasks: string[]): CarryPlan => ({ tasks, uploads: [] });

const TOKEN = /^[0-9a-f]{32}$/;

/** The upload directory named by a task text of the controller `root`, if any (only a well-formed token). */
export function uploadDirOf(tasks: string[], root: string): string | undefined {
  const prefix = `${root}/`;
  for (const t of tasks) {
    for (let i = t.indexOf(prefix); i >= 0; i = t.indexOf(prefix, i + 1)) {
      const token = t.slice(i + prefix.length, i + prefix.length + 32);
      if (TOKEN.test(token)) return `${root}/${token}`;
    }
  }
  return undefined;
}

/**
 * The copies the job needs and its tasks rewritten to name them. `root`: uploadsRoot() of the
 * controller. Tasks with no local path are returned as they were. Throws for a task that does
 * not parse (submit checks each task anyway).
 */
export function planCarry(tasks: string[], envs: Record<string, string>, base: string, root: string): CarryPlan {
  const dir = `${root}/${randomBytes(16).toString('hex')}`;
  const byLocal = new Map<string, Upload>();
  const copyOf = (local: string, workdir: boolean): string => {
    const key = `${workdir ? 'w' : 'f'}:${local}`;
    let u = byLocal.get(key);
    if (!u) {
      const name = path.basename(local).replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 60) || 'root';
      u = { local, remote: `${dir}/${byLocal.size + 1}-${name}`, workdir };
      byLocal.set(key, u);
    }
    return u.remote;
  };
  const out = tasks.map((text, i) => {
    const p = parseTaskText(text, `task ${i + 1}`, { env: envs });
    if (!p.ok || p.tasks.length !== 1) throw new Error(`task ${i + 1} of the managed job is not one valid task`);
    return rewrite(text, p.tasks[0], envs, (src, workdir) => copyOf(localPath(src, base), workdir));
  });
  const uploads = [...byLocal.values()];
  return uploads.length ? { tasks: out, uploads, dir, base } : noCarry(tasks);
}

/** The task text with each local path replaced by `copy(path)`; unchanged text when there is none. */
function rewrite(text: string, task: Task, envs: Record<string, string>, copy: (src: string, workdir: boolean) => string): string {
  const doc = parseDocument(text);
  let changed = false;
  if (typeof task.workdir === 'string') {
    doc.set('workdir', copy(task.workdir, true));
    changed = true;
  }
  const mounts = doc.get('file_mounts');
  if (isMap(mounts)) {
    const vars = substitutionValues(prepareForValidation(doc.toJS() as Record<string, unknown>, envs), envs);
    for (const pair of mounts.items) {
      const key = String((pair.key as { value?: unknown })?.value ?? pair.key);
      const m = task.fileMounts[substituteEnvVars(key, vars)];
      if (m?.kind === 'copy') {
        pair.value = doc.createNode(copy(m.source, false));
        changed = true;
      } else if (m?.kind === 'bucket' && m.mount.kind === 'named' && isMap(pair.value)) {
        if (m.mount.localSource !== undefined) pair.value.set('source', copy(m.mount.localSource, false));
        else if (m.mount.localFiles && isSeq(pair.value.get('source'))) pair.value.set('source', doc.createNode(m.mount.localFiles.map((f) => copy(f, false))));
        else continue;
        changed = true;
      }
    }
  }
  return changed ? doc.toString({ lineWidth: 0 }) : text;
}

/** The local paths a submit copies to the controller, resolved ("workdir /abs → ~/sky_workdir", …), once each. */
export function carriedLines(tasks: string[], base: string): string[] {
  const lines = new Set<string>();
  for (const t of tasks) {
    const p = parseTaskText(t);
    if (p.ok && p.tasks.length === 1) for (const l of localUploadLines(p.tasks[0], base)) lines.add(l);
  }
  return [...lines];
}

/** Removes job's copies on this machine (the controller's), if its tasks name an upload directory. */
export function dropJobUploads(tasks: string[], controllerWorkspace: string): void {
  const dir = uploadDirOf(tasks, uploadsRoot(controllerWorkspace));
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
}

/** A submit killed between sending the files and recording the job leaves them; kept this long. */
export const ORPHAN_UPLOAD_MS = 60 * 60_000;

/**
 * Removes upload directories that no job with work left names: those of ended jobs (a
 * controller killed before it removed them) and, after ORPHAN_UPLOAD_MS, those no job names.
 * `jobs`: every job in the store. Returns the directories removed.
 */
export function sweepUploads(jobs: { tasks: string[]; active: boolean }[], controllerWorkspace: string, now: number): string[] {
  const root = uploadsRoot(controllerWorkspace);
  let names: string[];
  try {
    names = fs.readdirSync(root);
  } catch {
    return [];
  }
  const named = new Map<string, boolean>();
  for (const j of jobs) {
    const dir = uploadDirOf(j.tasks, root);
    if (dir) named.set(dir, (named.get(dir) ?? false) || j.active);
  }
  const removed: string[] = [];
  for (const n of names) {
    const dir = `${root}/${n}`;
    if (!TOKEN.test(n) || named.get(dir) === true) continue;
    if (!named.has(dir)) {
      let age: number;
      try { age = now - fs.lstatSync(dir).mtimeMs; } catch { continue; }
      if (age < ORPHAN_UPLOAD_MS) continue;
    }
    fs.rmSync(dir, { recursive: true, force: true });
    removed.push(dir);
  }
  return removed;
}
