import * as vscode from 'vscode';
import { OpsError, stop } from '../../core/ops';
import type { Command, CommandDeps } from './command';
import { canStop } from '../tree/clusterFlags';
import { clusterFromArg, Dismissed, optionsArg } from './support/pickers';
import { withOpsProgress } from './support/progress';
import { notify } from '../notify';

export interface StopClusterOptions {
  /** false skips the modal (tests); the default asks. */
  confirm: boolean;
}

/** Stop: the cloud stops the instances (disks kept) and Skydeck waits for proof. Clouds only. */
export const stopCluster: Command<'log' | 'model' | 'ops' | 'refresh'> = {
  id: 'skydeck.stopCluster',
  async run(ctx, arg, options) {
    const opts = optionsArg<StopClusterOptions>(options);
    const cluster = await clusterFromArg(ctx.model, arg, 'Skydeck: stop which cluster?', (c) => canStop(c) && c.status !== 'STOPPED');
    if (opts.confirm !== false) {
      // Running jobs die with their machines: ask, and say what survives.
      const pick = await notify.warning(
        `Stop cluster ${cluster}?`,
        { modal: true, detail: `Running jobs on ${cluster} are killed. Its disks are kept (and billed); Start resumes it.` },
        'Stop',
      );
      if (pick !== 'Stop') throw new Dismissed();
    }
    try {
      const r = await showUnless(ctx, () =>
        withOpsProgress(ctx, `Skydeck: stopping ${cluster}`, { cancellable: false }, (ops) => stop(ops, cluster)),
      );
      if (!r) return undefined;
      r.notes.forEach((n) => ctx.log.info(`stop ${cluster}: ${n}`));
      void notify.info(`Skydeck: ${cluster} is stopped.`);
      return r;
    } finally {
      // Also after a failure: the node then shows "stop unconfirmed" and the error.
      await ctx.refresh().catch((e) => ctx.log.warn(`refresh after stop: ${(e as Error).message}`));
    }
  },
};

/**
 * Stop and Start refuse local and ssh clusters with an OpsError ('usage' or 'unavailable')
 * that explains why. That is not a failure: show the op's own sentence as a plain warning and
 * resolve undefined. Real failures ('failed', anything else) still go to the command wrapper,
 * which logs them and offers "Show details". Shared with startCluster.ts.
 */
export async function showUnless<T>(ctx: Pick<CommandDeps, 'log'>, f: () => Promise<T>): Promise<T | undefined> {
  try {
    return await f();
  } catch (e) {
    if (!(e instanceof OpsError) || e.kind === 'failed') throw e;
    ctx.log.info(e.message);
    void notify.warning(`Skydeck: ${e.message}`);
    return undefined;
  }
}
