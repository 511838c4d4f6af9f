// Sends a managed job's carried files (carryFiles.ts) to the controller's machine: a workdir as
// a launch syncs one (its ignore rules), other sources whole, as a launch copies file mounts.
// The copies are checked like a launch's before anything is sent (a missing path is named).
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Transport } from '../transport';
import { copyToNode, syncWorkdir } from '../ops/syncFiles';
import { OpsError } from '../ops/errors';
import type { CarryPlan } from './carryFiles';

/** How often a send refreshes its directory's time (the sweep's ORPHAN_UPLOAD_MS is an hour). */
export const FRESH_MS = 5 * 60_000;

export async function sendCarry(t: Transport, python: string, plan: CarryPlan, progress: (m: string) => void = () => undefined, freshMs = FRESH_MS): Promise<void> {
  if (!plan.dir) return;
  for (const u of plan.uploads) {
    let st: fs.Stats;
    try {
      st = fs.statSync(u.local);
    } catch {
      throw new OpsError('usage', `the managed job's ${u.workdir ? 'workdir' : 'file mount source'} ${u.local} does not exist on this machine (a relative path is taken from ${plan.base ?? 'the folder the command runs in'}); nothing was submitted`);
    }
    if (u.workdir && !st.isDirectory()) throw new OpsError('usage', `the managed job's workdir ${u.local} is not a directory; nothing was submitted`);
  }
  // The manifests of these one-off syncs are thrown away: each job gets its own copy.
  const local = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-carry-'));
  // The controller's sweep takes a directory untouched for an hour as a dead submit's: a long
  // send keeps its directory's time fresh.
  const dir = plan.dir;
  const fresh = setInterval(() => void t.exec(['touch', '-c', '--', dir]).catch(() => undefined), freshMs);
  fresh.unref();
  try {
    for (const u of plan.uploads) {
      progress(`Copying ${u.local} to the managed-jobs controller`);
      if (u.workdir) await syncWorkdir(t, python, u.local, u.remote, { nodeStateDir: `${plan.dir}/.sync`, localStateDir: local });
      else await copyToNode(t, python, u.local, u.remote);
    }
  } finally {
    clearInterval(fresh);
    fs.rmSync(local, { recursive: true, force: true });
  }
}

/** Removes a job's upload directory (a submit that failed after sending, or a job that ended). */
export async function dropCarry(t: Transport, dir: string): Promise<void> {
  await t.exec(['rm', '-rf', '--', dir]);
}
