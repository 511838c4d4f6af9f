// The `local` managed-jobs controller: the controller loop runs on THIS machine, as a detached
// background process, with its own workspace under the user's home. The CLI and the editor both
// open their client here; only how the CLI entry is run differs (the CLI runs itself, the editor
// its bundled dist/cli.js under Electron-as-Node), so the spawn lives in one place.
//
// Why a detached child: the store and its lease are files on this machine, so a caller can write
// a job and know (from the lease's pid) whether a controller already serves the store; if none
// does, it starts one that outlives the caller (detached, its own process group, stdio to a log
// file) and that exits by itself once every job has ended and it has been idle a while.
// A remote controller (a cluster that outlives the laptop) replaces the spawn, not the store.
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { liveLocalOwner } from '../state/fileLock';
import { ManagedController } from './controller';
import { ManagedStore } from './store';
import { LocalManagedClient } from './localClient';
import type { ManagedJobsClient } from './client';

/** How to run the `skydeck` CLI entry: `execPath ...args jobs controller-run`. */
export interface CliEntry {
  execPath: string;
  /** Node options, then the CLI script. */
  args: string[];
  /** Added to the child's environment (the editor: ELECTRON_RUN_AS_NODE=1). */
  env?: Record<string, string>;
}

/** `$SKYDECK_CONTROLLER_HOME`, else `~/.skydeck/controller`: the controller's workspace root. */
export function controllerHome(): string {
  return process.env.SKYDECK_CONTROLLER_HOME || path.join(os.homedir(), '.skydeck', 'controller');
}

export function storeFileOf(workspaceRoot: string): string {
  return ManagedStore.fileIn(workspaceRoot);
}

/** The controller's own log (its stdout/stderr). */
export function controllerLogFile(workspaceRoot: string): string {
  return path.join(workspaceRoot, 'controller.log');
}

/** The pid holding the store's controller lease, if it is alive on this host. */
export function leaseHolder(storeFile: string): number | undefined {
  return leaseOwner(storeFile)?.pid;
}

/** The live lease holder with its recorded start time (a signal checks it again first). */
export function leaseOwner(storeFile: string): { pid: number; start?: string } | undefined {
  return liveLocalOwner(ManagedController.leaseFileOf(storeFile));
}

/**
 * Starts `skydeck jobs controller-run` in the background unless a live controller holds the
 * lease; returns its pid (or the holder's). The job is written BEFORE this check, and the
 * controller looks for unfinished jobs AFTER releasing its lease, so a job is never stranded.
 */
export function ensureLocalController(workspaceRoot: string, entry: CliEntry): { pid: number; started: boolean; logFile: string } {
  const logFile = controllerLogFile(workspaceRoot);
  const held = leaseHolder(storeFileOf(workspaceRoot));
  if (held !== undefined) return { pid: held, started: false, logFile };
  fs.mkdirSync(workspaceRoot, { recursive: true, mode: 0o700 });
  const fd = fs.openSync(logFile, 'a', 0o600);
  try {
    const child = spawn(entry.execPath, [...entry.args, 'jobs', 'controller-run'], {
      detached: true, stdio: ['ignore', fd, fd], cwd: workspaceRoot,
      env: { ...process.env, ...entry.env, SKYDECK_CONTROLLER_HOME: workspaceRoot },
    });
    child.unref();
    if (child.pid === undefined) throw new Error(`could not start the managed-jobs controller (see ${logFile})`);
    return { pid: child.pid, started: true, logFile };
  } finally {
    fs.closeSync(fd);
  }
}

/** The client of the controller on this machine (what `jobs` commands and the editor use). */
export function openLocalClient(workspaceRoot: string, entry: CliEntry, now: () => number = Date.now): Promise<ManagedJobsClient> {
  return LocalManagedClient.open(storeFileOf(workspaceRoot), () => {
    const c = ensureLocalController(workspaceRoot, entry);
    return { where: 'this machine', started: c.started, detail: c.started ? `started it: pid ${c.pid}, log ${c.logFile}` : `pid ${c.pid}` };
  }, now, workspaceRoot);
}
