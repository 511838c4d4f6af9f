// Runs a command in its own process group for a test and collects its output. Past `guardMs`
// the whole group (and what descends from it) is killed and `signal` says so: a guard against a
// hang hanging the suite, not a speed bound. spawnSync cannot do this: its timeout kills only
// the direct child, and it then waits for grandchildren that still hold the pipes.
import { spawn } from 'node:child_process';
import { stopTree } from '../../scripts/procTree.mjs';

export interface GuardedRun {
  status: number | null;
  /** 'SIGKILL' when the guard fired. */
  signal: string | null;
  stdout: string;
  stderr: string;
  out: string;
}

export function runGuarded(cmd: string, args: string[], opts: { cwd: string; env?: Record<string, string>; guardMs: number }): Promise<GuardedRun> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd: opts.cwd, env: { ...process.env, ...opts.env }, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    let guarded: string | null = null;
    const guard = setTimeout(() => {
      guarded = 'SIGKILL';
      void stopTree(child.pid!, 0);
    }, opts.guardMs);
    child.on('close', (status, signal) => {
      clearTimeout(guard);
      void stopTree(child.pid!, 0); // nothing it started outlives it
      resolve({ status, signal: guarded ?? signal, stdout, stderr, out: `${stdout}\n${stderr}` });
    });
  });
}
