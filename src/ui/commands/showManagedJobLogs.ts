import type { Command } from './command';
import { managedJobFromArg } from './support/managedPick';
import { managedLogSource } from './support/managedLogSource';

/** Show Managed Job Logs: one panel following the job across its recoveries (a marked line at each). */
export const showManagedJobLogs: Command<'logs' | 'model' | 'managed' | 'controllerOps'> = {
  id: 'skydeck.showManagedJobLogs',
  async run(ctx, arg) {
    const job = await managedJobFromArg(ctx.model, arg, 'Skydeck: show the logs of which managed job?');
    const key = { cluster: 'managed', jobId: job.id, name: job.name, managed: true };
    ctx.logs.open(key, managedLogSource(() => ctx.managed(), () => ctx.controllerOps(), job.id));
  },
};
