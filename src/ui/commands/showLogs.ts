import type { Command } from './command';
import { jobFromArg } from './support/pickers';
import { jobLogSource } from './support/jobLogSource';

/** Show Logs: a job node (tree click or menu), else pick a cluster and a job. */
export const showLogs: Command<'logs' | 'model' | 'ops'> = {
  id: 'skydeck.showLogs',
  async run(ctx, arg) {
    const job = await jobFromArg(ctx.model, arg, 'Skydeck: show the logs of which job?');
    const key = { cluster: job.cluster, jobId: job.jobId, name: job.name };
    ctx.logs.open(key, jobLogSource(() => ctx.ops(), key));
  },
};
