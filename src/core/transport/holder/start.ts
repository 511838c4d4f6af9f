// Starting a holder and running one (the `skydeck __holder` entry).
import { spawn } from 'node:child_process';
import * as os from 'node:os';
import { DEFAULT_IDLE_MS, runHolder } from './server';
import { holderDir } from './socketDir';

/**
 * Starts `execPath args… __holder` detached, in its own process group, stdio closed, and does
 * not wait: this run connects directly; the next finds the holder. Two started at once end as one.
 */
export function startHolder(execPath: string, args: string[], dir: string): void {
  try {
    const child = spawn(execPath, [...args, '__holder'], {
      detached: true,
      stdio: 'ignore',
      // Not the caller's directory: a holder living for minutes must not keep a workspace busy.
      cwd: os.homedir(),
      env: { ...process.env, SKYDECK_HOLDER_DIR: dir, ELECTRON_RUN_AS_NODE: '1' },
    });
    child.on('error', () => undefined);
    child.unref();
  } catch {
    // No holder: every run connects directly, as before.
  }
}

/** The holder process's main: serves until idle (SKYDECK_HOLDER_IDLE_MS, default 10 min). */
export async function holderMain(env: NodeJS.ProcessEnv = process.env, opts: { workerArgs?: string[] } = {}): Promise<number> {
  const idle = Number(env.SKYDECK_HOLDER_IDLE_MS);
  const h = await runHolder({ dir: holderDir(env), idleMs: idle > 0 ? idle : DEFAULT_IDLE_MS, workerArgs: opts.workerArgs });
  for (const sig of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.once(sig, () => void h.stop());
  await h.done;
  return 0;
}
