import * as fs from 'node:fs';
import * as path from 'node:path';

// A `local` cluster lives in <workspace>/.skydeck/local/<name>: its agent, jobs.db, workdir and
// logs. The workspace may come from a repository someone else wrote, so that path is checked
// before Skydeck runs, writes or deletes anything there.

export function localBaseDir(workspaceRoot: string, cluster: string): string {
  return path.join(workspaceRoot, '.skydeck', 'local', cluster);
}

/**
 * Why Skydeck must not use the cluster's directory, or undefined. A symlink anywhere on the way
 * (.skydeck, .skydeck/local, the cluster's own directory) would send the agent's files — and
 * down's `rm -rf` — to wherever the link points.
 */
export function localBaseProblem(workspaceRoot: string, cluster: string): string | undefined {
  const steps = [path.join(workspaceRoot, '.skydeck'), path.join(workspaceRoot, '.skydeck', 'local'), localBaseDir(workspaceRoot, cluster)];
  for (const p of steps) {
    let st: fs.Stats;
    try {
      st = fs.lstatSync(p);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined; // made by Skydeck later
      return `${p} cannot be checked (${(e as Error).message})`;
    }
    if (st.isSymbolicLink()) return `${p} is a symbolic link (to ${safeReadlink(p)}); Skydeck keeps local clusters only in real directories of the workspace`;
    if (!st.isDirectory()) return `${p} is not a directory`;
  }
  return undefined;
}

/**
 * A launch that has just created the cluster's row starts from an empty directory: anything
 * already there (a jobs.db with queued jobs, an agent) came from the workspace or from a
 * cluster of this name that no row owns any more, and must not be picked up by the new agent.
 * Returns whether something was removed.
 */
export function clearUnownedLocalBase(workspaceRoot: string, cluster: string): boolean {
  const problem = localBaseProblem(workspaceRoot, cluster);
  if (problem) throw new Error(problem);
  const base = localBaseDir(workspaceRoot, cluster);
  if (!fs.existsSync(base)) return false;
  fs.rmSync(base, { recursive: true, force: true });
  return true;
}

function safeReadlink(p: string): string {
  try {
    return JSON.stringify(fs.readlinkSync(p));
  } catch {
    return 'somewhere unreadable';
  }
}
