// The text of the CodeLens on `setup:`: for each UP cluster, whether a launch there re-runs
// setup (setup changed, or never recorded from this workspace) or skips it (core/ops/
// setupRecord.ts, the same hash launch uses). No vscode import (unit-tested in plain Node).
import { parseTaskText } from '../../core/task';
import { resolveEnvs } from '../../core/task/envs';
import { emptyValues } from '../../core/task/emptyValues';
import { setOwn } from '../../core/task/objects';
import { readSetupRecord, setupHash, setupRecordFile } from '../../core/ops/setupRecord';

export interface SetupLens {
  line: number; // 0-based line of the `setup:` key
  title: string;
}

/** One lens per UP cluster on the `setup:` line, or none (no setup, a pipeline, a broken file). */
export function setupLenses(text: string, workspaceRoot: string, clusters: { name: string; uid: string }[], asked: Record<string, string> = {}): SetupLens[] {
  const m = /^setup[ \t]*:/m.exec(text);
  if (!m || !clusters.length) return [];
  const parsed = parseTaskText(text);
  if (parsed.tasks.length !== 1 || !parsed.tasks[0].setup) return [];
  const task = parsed.tasks[0];
  // The file's own envs; an empty one as Launch would offer it: the answer it remembers, else "".
  const filled: Record<string, string> = {};
  for (const e of emptyValues([task])) if (!e.secret) setOwn(filled, e.name, Object.hasOwn(asked, e.name) ? asked[e.name] : '');
  const { envs } = resolveEnvs(task, filled);
  const secrets: Record<string, string> = {};
  for (const k of Object.keys(task.secrets)) {
    secrets[k] = '';
    delete envs[k];
  }
  const hash = setupHash(task, envs, secrets);
  const line = text.slice(0, m.index).split('\n').length - 1;
  return clusters.map((c) => {
    const rec = readSetupRecord(setupRecordFile(workspaceRoot, c.uid));
    const title = !rec ? `setup will run on ${c.name} (not run there from here yet)`
      : rec.hash === hash ? `setup unchanged on ${c.name} (job ${rec.jobId}) → skipped at launch`
        : `setup changed → will re-run on ${c.name}`;
    return { line, title };
  });
}
