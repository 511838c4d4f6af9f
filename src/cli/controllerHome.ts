// The `local` managed-jobs controller: the controller loop runs on THIS machine, as a detached
// background process of the CLI, with its own workspace under the user's home.
//
// Why local-only, and why a detached child: this slice lets managed jobs be tried without a
// controller cluster. The store and its lease are files on this machine, so the CLI can write a
// job and know (from the lease's pid) whether a controller already serves the store; if none
// does, it starts one that outlives the CLI invocation (detached, its own process group, stdio
// to a log file) and that exits by itself once every job has ended and it has been idle a while.
// A controller cluster (jobs.controller: local-cluster or ssh:<pool>) runs this same code on its
// node: the remote client calls the node's CLI, which uses the local client there.
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { LocalManagedClient, ManagedController, ManagedStore, openRemoteClient, readControllerSetting, type ManagedJobsClient } from '../core/managed';
import { OpsError, type OpsContext } from '../core/ops';
import { liveLocalHolder } from '../core/state/fileLock';
import { isAlive } from '../core/state/atomicWrite';
import { askHandover } from './controllerHandover';

/** `$SKYDECK_CONTROLLER_HOME`, else `~/.skydeck/controller`: the controller's workspace root. */
export function controllerHome(): string {
  return process.env.SKYDECK_CONTROLLER_HOME || path.join(os.homedir(), '.skydeck', 'controller');
}

export function storeFileOf(workspaceRoot: string): string {
  return ManagedStore.fileIn(workspaceRoot);
}

/** The pid holding the store's controller lease, if it is alive on this host. */
export function leaseHolder(storeFile: string): number | undefined {
  return liveLocalHolder(ManagedController.leaseFileOf(storeFile));
}

/**
 * Starts `skydeck jobs controller-run` in the background unless a live controller holds the
 * lease; returns its pid (or the holder's). The job is written BEFORE this check, and the
 * controller looks for unfinished jobs AFTER releasing its lease, so a job is never stranded.
 */
export function ensureLocalController(workspaceRoot: string, entry = process.argv[1]): { pid: number; started: boolean; logFile: string; handover?: boolean } {
  const logFile = path.join(workspaceRoot, 'controller.log');
  const held = leaseHolder(storeFileOf(workspaceRoot));
  if (held !== undefined) return { pid: held, started: false, logFile, handover: askHandover(workspaceRoot, entry) };
  fs.mkdirSync(workspaceRoot, { recursive: true, mode: 0o700 });
  const fd = fs.openSync(logFile, 'a', 0o600);
  try {
    // The same node and CLI entry as this process (process.argv[1]), so versions match.
    const child = spawn(process.execPath, [...process.execArgv, entry, 'jobs', 'controller-run'], {
      detached: true, stdio: ['ignore', fd, fd], cwd: workspaceRoot,
      env: { ...process.env, SKYDECK_CONTROLLER_HOME: workspaceRoot },
    });
    child.unref();
    if (child.pid === undefined) throw new Error(`could not start the managed-jobs controller (see ${logFile})`);
    return { pid: child.pid, started: true, logFile };
  } finally {
    fs.closeSync(fd);
  }
}

/** Ends the live controller of the store (SIGTERM, then waits); returns its pid, if one ran. */
export async function stopLocalController(workspaceRoot: string): Promise<number | undefined> {
  const pid = leaseHolder(storeFileOf(workspaceRoot));
  if (pid === undefined) return undefined;
  process.kill(pid, 'SIGTERM');
  for (let i = 0; i < 100 && isAlive(pid); i++) await new Promise((r) => setTimeout(r, 100));
  if (isAlive(pid)) throw new Error(`the managed-jobs controller (pid ${pid}) did not stop within 10 s`);
  return pid;
}

/**
 * The client every `jobs` command uses: the controller on this machine, or on the controller
 * cluster that $SKYDECK_JOBS_CONTROLLER / jobs.controller names (launched on first use).
 */
export async function managedClient(ctx: OpsContext, o: { copyCredentials?: boolean; launch?: boolean } = {}): Promise<ManagedJobsClient> {
  let setting;
  try {
    setting = readControllerSetting();
  } catch (e) {
    throw new OpsError('usage', (e as Error).message);
  }
  if (setting.place.kind !== 'this-machine') {
    return openRemoteClient(ctx, setting.place, { copyCredentials: o.copyCredentials || setting.copyCredentials, launch: o.launch });
  }
  return LocalManagedClient.open(storeFileOf(ctx.workspaceRoot), () => {
    const c = ensureLocalController(ctx.workspaceRoot);
    const held = c.handover ? `pid ${c.pid}, asked to hand over to this version` : `pid ${c.pid}`;
    return { where: 'this machine', started: c.started, detail: c.started ? `started it: pid ${c.pid}, log ${c.logFile}` : held };
  }, () => ctx.clock?.now() ?? Date.now());
}
