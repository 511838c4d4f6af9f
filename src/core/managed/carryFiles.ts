// A managed job's local files — its workdir, local file_mounts sources, a named bucket's local
// sources — copied to the controller when the job is submitted, and its tasks rewritten to name
// the copies. The controller launches each task on its own machine, maybe hours later after a
// preemption, when this machine is off or its files have changed; SkyPilot uploads them at
// `jobs launch` too. Paths resolve against `base` as a launch's do (the CLI's working directory,
// the editor's workspace folder). A job's copies live in one directory under the controller's
// workspace, `uploads/<token>/`, the token recorded with the job; the controller removes it once
// the job has ended (carrySweep.ts).
import { randomBytes } from 'node:crypto';
import * as path from 'node:path';
import { isMap, stringify } from 'yaml';
import { parseTaskText, type Task } from '../task';
import { localPath } from '../task/localPath';
import { parseYamlDocuments } from '../task/yamlSource';
import { prepareForValidation, substituteEnvVars, substitutionValues } from '../task/envs';

/** Where a controller keeps the uploads of its jobs: under its workspace's managed-jobs files. */
export function uploadsRoot(controllerWorkspace: string): string {
  return path.posix.join(controllerWorkspace, '.skydeck', 'managed', 'uploads');
}

export const UPLOAD_TOKEN = /^[0-9a-f]{32}$/;

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
  /** The job's upload directory on the controller and its token (absent: nothing to carry). */
  dir?: string;
  token?: string;
  /** What relative paths were resolved against (for messages). */
  base?: string;
}

/** The tasks recorded as they are: nothing to copy. */
export const noCarry = (tasks: string[]): CarryPlan => ({ tasks, uploads: [] });

/** Every local path of a parsed task, as a launch would read it, with `to` naming its copy. */
function localPaths(t: Task, to: (local: string, o: { workdir?: boolean; keepName?: boolean }) => string, base: string): Task {
  const out: Task = { ...t, fileMounts: { ...t.fileMounts } };
  if (typeof t.workdir === 'string') out.workdir = to(localPath(t.workdir, base), { workdir: true });
  for (const [dst, m] of Object.entries(t.fileMounts)) {
    if (m.kind === 'copy') out.fileMounts[dst] = { kind: 'copy', source: to(localPath(m.source, base), {}) };
    else if (m.kind === 'bucket' && m.mount.kind === 'named') {
      const mount = { ...m.mount };
      if (mount.localSource !== undefined) mount.localSource = to(localPath(mount.localSource, base), {});
      // Each file lands in the bucket under its own name: its copy keeps it.
      if (mount.localFiles) mount.localFiles = mount.localFiles.map((f) => to(localPath(f, base), { keepName: true }));
      out.fileMounts[dst] = { ...m, mount };
    }
  }
  return out;
}

/** Resolved "workdir /abs → ~/sky_workdir" lines of what a submit copies, once each. */
export function carriedLines(tasks: string[], envs: Record<string, string>, base: string): string[] {
  const lines = new Set<string>();
  for (const text of tasks) {
    const p = parseTaskText(text, 'task', { env: envs });
    if (!p.ok || p.tasks.length !== 1) continue;
    const t = p.tasks[0];
    localPaths(t, (local, o) => {
      lines.add(o.workdir ? `workdir ${local} → ~/sky_workdir` : local);
      return local;
    }, base);
  }
  return [...lines];
}

/**
 * The copies the job needs and its tasks rewritten to name them. `root`: uploadsRoot() of the
 * controller. Tasks with no local path are returned byte for byte. A rewritten task is parsed
 * again and must be the same task but for those paths; if no rewrite passes, it throws.
 */
export function planCarry(tasks: string[], envs: Record<string, string>, base: string, root: string): CarryPlan {
  const token = randomBytes(16).toString('hex');
  const dir = `${root}/${token}`;
  const byLocal = new Map<string, Upload>();
  const copyOf = (local: string, o: { workdir?: boolean; keepName?: boolean }): string => {
    const key = `${o.workdir ? 'w' : o.keepName ? 'n' : 'f'}:${local}`;
    let u = byLocal.get(key);
    if (!u) {
      // Copies are numbered, not named after the source: a name may hold a secret's value.
      const n = byLocal.size + 1;
      u = { local, remote: o.keepName ? `${dir}/${n}/${path.basename(local)}` : `${dir}/${n}`, workdir: !!o.workdir };
      byLocal.set(key, u);
    }
    return u.remote;
  };
  const out = tasks.map((text, i) => {
    const p = parseTaskText(text, `task ${i + 1}`, { env: envs });
    if (!p.ok || p.tasks.length !== 1) throw new Error(`task ${i + 1} of the managed job is not one valid task`);
    const want = localPaths(p.tasks[0], copyOf, base);
    if (sameTask(p.tasks[0], want)) return text; // no local path in it
    return rewritten(text, envs, want, i);
  });
  const uploads = [...byLocal.values()];
  return uploads.length ? { tasks: out, uploads, dir, token, base } : noCarry(tasks);
}

/** The first rewrite whose text parses as `want`; in place first (comments kept), else written out whole. */
function rewritten(text: string, envs: Record<string, string>, want: Task, i: number): string {
  for (const attempt of [inPlace, wholeDocument]) {
    let candidate: string;
    try {
      candidate = attempt(text, envs, want);
    } catch {
      continue;
    }
    const p = parseTaskText(candidate, `task ${i + 1}`, { env: envs });
    if (p.ok && p.tasks.length === 1 && sameTask(p.tasks[0], want)) return candidate;
  }
  throw new Error(`task ${i + 1} of the managed job names local files in a way Skydeck cannot rewrite to name their copies on the controller; write its workdir and file_mounts out plainly (no anchors, aliases or merge keys)`);
}

/** Values as the parser sees them, with `$NAME` references (of keys, too) resolvable. */
function varsOf(js: Record<string, unknown>, envs: Record<string, string>): Record<string, string> {
  return substitutionValues(prepareForValidation(js, envs), envs);
}

/** Only the path scalars change; everything else stays as written (YAML 1.1, as the parser reads it). */
function inPlace(text: string, envs: Record<string, string>, want: Task): string {
  const doc = parseYamlDocuments(text).docs[0];
  if (!doc || doc.errors.length) throw new Error('not one document');
  if (typeof want.workdir === 'string') doc.set('workdir', want.workdir);
  const mounts = doc.get('file_mounts', true);
  if (isMap(mounts)) {
    const vars = varsOf(doc.toJS() as Record<string, unknown>, envs);
    for (const pair of mounts.items) {
      const key = String((pair.key as { value?: unknown })?.value ?? pair.key);
      const m = want.fileMounts[substituteEnvVars(key, vars)];
      if (m?.kind === 'copy') pair.value = doc.createNode(m.source);
      else if (m?.kind === 'bucket' && m.mount.kind === 'named' && isMap(pair.value)) {
        if (m.mount.localSource !== undefined) pair.value.set('source', m.mount.localSource);
        else if (m.mount.localFiles) pair.value.set('source', doc.createNode(m.mount.localFiles));
      }
    }
  }
  return doc.toString({ lineWidth: 0 });
}

/** Aliases and merge keys resolved, the paths set, the document written out again. */
function wholeDocument(text: string, envs: Record<string, string>, want: Task): string {
  const doc = parseYamlDocuments(text).docs[0];
  if (!doc || doc.errors.length) throw new Error('not one document');
  const js = doc.toJS() as Record<string, unknown>;
  if (typeof want.workdir === 'string') js.workdir = want.workdir;
  const mounts = js.file_mounts;
  if (mounts && typeof mounts === 'object' && !Array.isArray(mounts)) {
    const vars = varsOf(js, envs);
    const next: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(mounts as Record<string, unknown>)) {
      const m = want.fileMounts[substituteEnvVars(key, vars)];
      if (m?.kind === 'copy') next[key] = m.source;
      else if (m?.kind === 'bucket' && m.mount.kind === 'named' && value && typeof value === 'object') {
        const v = { ...(value as Record<string, unknown>) };
        if (m.mount.localSource !== undefined) v.source = m.mount.localSource;
        else if (m.mount.localFiles) v.source = m.mount.localFiles;
        next[key] = v;
      } else next[key] = value;
    }
    js.file_mounts = next;
  }
  return stringify(js, { version: '1.1', lineWidth: 0 });
}

/** The same task, whatever its text: everything but the text itself and where it came from. */
function sameTask(a: Task, b: Task): boolean {
  const strip = ({ raw: _r, docIndex: _d, ...rest }: Task) => rest;
  return canonical(strip(a)) === canonical(strip(b));
}

function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object') return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`).join(',')}}`;
  return JSON.stringify(v) ?? 'undefined';
}
