import * as vscode from 'vscode';
import { start } from '../../core/ops';
import type { Command } from './command';
import { canStop } from '../tree/clusterFlags';
import { clusterFromArg } from './support/pickers';
import { withOpsProgress } from './support/progress';
import { showUnless } from './stopCluster';
import { notify } from '../notify';

/** Start: resumes a stopped cloud cluster in place and reconnects its agent. Clouds only. */
export const startCluster: Command<'log' | 'model' | 'ops' | 'refresh'> = {
  id: 'skydeck.startCluster',
  async run(ctx, arg) {
    const cluster = await clusterFromArg(ctx.model, arg, 'Skydeck: start which cluster?', (c) => canStop(c) && (c.status === 'STOPPED' || !!c.flags));
    try {
      // Not cancellable: a half-started cluster is left to the core's own clean-up, not
      // interrupted at an arbitrary progress step.
      const row = await showUnless(ctx, () =>
        withOpsProgress(ctx, `Skydeck: starting ${cluster}`, { cancellable: false }, (ops) => start(ops, cluster)),
      );
      if (!row) return undefined;
      ctx.log.info(`start ${cluster}: ${row.status} at ${row.head_address ?? 'unknown address'}`);
      void notify.info(`Skydeck: ${cluster} is up.`);
      return row;
    } finally {
      await ctx.refresh().catch((e) => ctx.log.warn(`refresh after start: ${(e as Error).message}`));
    }
  },
};
