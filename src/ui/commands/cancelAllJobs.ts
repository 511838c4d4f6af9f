import * as vscode from 'vscode';
import { cancel } from '../../core/ops';
import type { Command } from './command';
import { clusterFromArg } from './support/pickers';
import { graceSeconds } from './support/progress';
import { notify } from '../notify';

/** Cancel All Jobs on a cluster (its node's menu); the cluster itself stays up. */
export const cancelAllJobs: Command<'jobEvents' | 'log' | 'model' | 'ops' | 'refresh'> = {
  id: 'skydeck.cancelAllJobs',
  async run(ctx, arg) {
    const cluster = await clusterFromArg(ctx.model, arg, 'Skydeck: cancel every job on which cluster?', (c) => c.status === 'UP');
    const r = await cancel(await ctx.ops(), cluster, { all: true }, graceSeconds());
    // The tree shows CANCELLED now, not after the reload below answers.
    for (const id of r.cancelled) ctx.jobEvents.publish({ cluster: cluster, jobId: id, status: 'CANCELLED', exitCode: null, reason: null, source: 'cancel' });
    await ctx.refresh().catch((e) => ctx.log.warn(`refresh after cancel: ${(e as Error).message}`));
    const n = r.cancelled.length;
    void notify.info(`Skydeck: ${n ? `cancelled ${n} job${n === 1 ? '' : 's'}` : 'no unfinished jobs'} on ${cluster}.`);
    return r;
  },
};
