import * as vscode from 'vscode';
import { down } from '../../core/ops';
import type { Command } from './command';
import { clusterFromArg, Dismissed, optionsArg } from './support/pickers';
import { graceSeconds, withOpsProgress } from './support/progress';
import { notify } from '../notify';

export interface DownClusterOptions {
  /** false skips the modal (tests); the default asks. */
  confirm: boolean;
}

/** Down: cancel every job, stop the agent, delete Skydeck's files there, forget the cluster. */
export const downCluster: Command<'log' | 'model' | 'ops' | 'refresh'> = {
  id: 'skydeck.downCluster',
  async run(ctx, arg, options) {
    const opts = optionsArg<DownClusterOptions>(options);
    const cluster = await clusterFromArg(ctx.model, arg, 'Skydeck: tear down which cluster?');
    if (opts.confirm !== false) {
      // Destructive and not undoable: a modal, naming what is lost.
      const pick = await notify.warning(
        `Tear down cluster ${cluster}?`,
        { modal: true, detail: `Every job on ${cluster} is cancelled and its logs are deleted. This cannot be undone.` },
        'Down',
      );
      if (pick !== 'Down') throw new Dismissed();
    }
    try {
      const r = await withOpsProgress(ctx, `Skydeck: tearing down ${cluster}`, { cancellable: false }, (ops) =>
        down(ops, cluster, { graceSeconds: graceSeconds() }),
      );
      r.notes.forEach((n) => ctx.log.info(`down ${cluster} (uid ${r.uid}): ${n}`));
      void notify.info(`Skydeck: ${cluster} is down (uid ${r.uid}).`);
      return r;
    } finally {
      // Also after a failure: the node then shows the error down left on the cluster.
      await ctx.refresh().catch((e) => ctx.log.warn(`refresh after down: ${(e as Error).message}`));
    }
  },
};
