import * as vscode from 'vscode';
import { cancel } from '../../core/ops';
import type { Command } from './command';
import { jobFromArg } from './support/pickers';
import { graceSeconds } from './support/progress';
import { notify } from '../notify';

/** Cancel Job: SIGTERM to the job's process group, SIGKILL after the grace from the settings. */
export const cancelJob: Command<'jobEvents' | 'log' | 'model' | 'ops' | 'refresh'> = {
  id: 'skydeck.cancelJob',
  async run(ctx, arg) {
    const job = await jobFromArg(ctx.model, arg, 'Skydeck: cancel which job?');
    const r = await cancel(await ctx.ops(), job.cluster, { jobIds: [job.jobId] }, graceSeconds());
    // The tree shows CANCELLED now, not after the reload below answers.
    for (const id of r.cancelled) ctx.jobEvents.publish({ cluster: job.cluster, jobId: id, status: 'CANCELLED', exitCode: null, reason: null, source: 'cancel' });
    await ctx.refresh().catch((e) => ctx.log.warn(`refresh after cancel: ${(e as Error).message}`));
    const what = `${job.cluster} #${job.jobId}`;
    void notify.info(
      r.cancelled.includes(job.jobId) ? `Skydeck: cancelled ${what}.` : `Skydeck: ${what} had already finished.`,
    );
    return r;
  },
};
