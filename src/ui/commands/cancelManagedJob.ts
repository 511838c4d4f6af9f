import type { Command } from './command';
import { Dismissed, optionsArg } from './support/pickers';
import { cancellable, managedJobFromArg } from './support/managedPick';
import { notify } from '../notify';

export interface CancelManagedJobOptions {
  /** false skips the confirmation (tests); the default asks. */
  confirm: boolean;
}

/** Cancel Managed Job: the controller cancels it and tears its cluster down with proof. */
export const cancelManagedJob: Command<'log' | 'model' | 'managed' | 'refresh'> = {
  id: 'skydeck.cancelManagedJob',
  async run(ctx, arg, options) {
    const opts = optionsArg<CancelManagedJobOptions>(options);
    const job = await managedJobFromArg(ctx.model, arg, 'Skydeck: cancel which managed job?', cancellable);
    const what = `managed job ${job.id}${job.name ? ` (${job.name})` : ''}`;
    if (opts.confirm !== false) {
      const pick = await notify.warning(`Cancel ${what}?`, { modal: true, detail: 'Its run stops and its cluster is torn down. This cannot be undone.' }, 'Cancel Job');
      if (pick !== 'Cancel Job') throw new Dismissed();
    }
    const r = await (await ctx.managed()).cancel([job.id]);
    await ctx.refresh().catch((e) => ctx.log.warn(`refresh after managed cancel: ${(e as Error).message}`));
    void notify.info(r.requested.includes(job.id)
      ? `Skydeck: cancelling ${what}; its cluster is torn down with proof.`
      : `Skydeck: ${what} had already ended (or is unknown).`);
    return r;
  },
};
