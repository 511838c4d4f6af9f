import { ManagedController, ManagedStore, listJobs, hasWork as hasJobWork } from '../../core/managed';
import type { OpsContext } from '../../core/ops';
import { UsageError, type ParsedArgs } from '../args';
import { EXIT, type CliIO } from '../io';
import { flagText } from '../ranges';
import { ensureLocalController, storeFileOf } from '../controllerHome';
import { clearHandover, handoverWanted, recordEntry } from '../controllerHandover';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The hidden `jobs controller-run`: the local controller loop (started detached by `jobs
 * launch`). It serves the store until every job has ended and it has been idle
 * `--idle-seconds` (default $SKYDECK_CONTROLLER_IDLE_S or 60), so nothing lingers; after
 * releasing its lease it looks once more, so a job written meanwhile is never stranded.
 */
export async function jobsControllerRun(io: CliIO, ctx: OpsContext, flags: ParsedArgs['flags']): Promise<number> {
  const idleMs = 1000 * number(flagText(flags['idle-seconds']) ?? process.env.SKYDECK_CONTROLLER_IDLE_S ?? '60', '--idle-seconds');
  const pollMs = number(flagText(flags['poll-ms']) ?? process.env.SKYDECK_CONTROLLER_POLL_MS ?? '5000', '--poll-ms');
  const storeFile = storeFileOf(ctx.workspaceRoot);
  const say = (m: string) => io.err(`${new Date().toISOString()} controller pid ${process.pid}: ${m}\n`);
  for (;;) {
    const c = await ManagedController.open(ctx, { storeFile, pollMs, leaseTimeoutMs: 2_000, log: say });
    try {
      await c.start();
    } catch (e) {
      await c.stop();
      say(`another controller serves ${storeFile} (${(e as Error).message}); exiting`);
      return EXIT.ok;
    }
    say(`serving ${storeFile}`);
    recordEntry(ctx.workspaceRoot, process.argv[1]);
    let idleSince: number | undefined;
    while (idleSince === undefined || Date.now() - idleSince < idleMs) {
      await sleep(Math.min(1_000, Math.max(50, idleMs / 4)));
      const next = handoverWanted(ctx.workspaceRoot, process.argv[1]);
      if (next) {
        await c.stop();
        clearHandover(ctx.workspaceRoot);
        const n = ensureLocalController(ctx.workspaceRoot, next);
        say(`handed over to ${next} (pid ${n.pid}); exiting`);
        return EXIT.ok;
      }
      const busy = await hasWork(c);
      idleSince = busy ? undefined : (idleSince ?? Date.now());
    }
    await c.stop();
    const store = await ManagedStore.open(storeFile);
    const left = await store.read((db) => listJobs(db)).finally(() => store.close());
    if (!left.jobs.some(hasJobWork)) {
      say(`idle for ${idleMs / 1000} s with every job ended; exiting`);
      return EXIT.ok;
    }
    say('a job arrived while stopping; serving again');
  }
}

async function hasWork(c: ManagedController): Promise<boolean> {
  return (await c.list()).jobs.some(hasJobWork);
}

function number(text: string, what: string): number {
  const n = Number(text);
  if (!Number.isFinite(n) || n < 0) throw new UsageError(`${what} must be a non-negative number, got "${text}"`);
  return n;
}
