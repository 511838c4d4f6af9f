import * as vscode from 'vscode';
import { setAutostop as setAutostopOp, type AutostopChange } from '../../core/ops';
import type { Command } from './command';
import { canStop } from '../tree/clusterFlags';
import { clusterFromArg, Dismissed, optionsArg } from './support/pickers';
import { withOpsProgress } from './support/progress';
import { showUnless } from './stopCluster';
import { notify } from '../notify';

/**
 * Set Autostop…: `skydeck autostop` on an UP cloud cluster from the tree. Arguments: (node or
 * name, {idleMinutes?, down?, cancel?}); given options (tests) skip the prompts.
 */
export const setAutostop: Command<'log' | 'model' | 'ops' | 'refresh'> = {
  id: 'skydeck.setAutostop',
  async run(ctx, arg, options) {
    const given = optionsArg<AutostopChange>(options);
    const cluster = await clusterFromArg(ctx.model, arg, 'Skydeck: set autostop on which cluster?', (c) => canStop(c) && c.status === 'UP');
    const change = Object.keys(given).length ? given : await askChange(ctx.model.cluster(cluster)?.autostop_minutes ?? null);
    try {
      const row = await showUnless(ctx, () =>
        withOpsProgress(ctx, `Skydeck: autostop of ${cluster}`, { cancellable: false }, (ops) => setAutostopOp(ops, cluster, change)),
      );
      if (!row) return undefined;
      void notify.info(row.autostop_minutes === null
        ? `Skydeck: autostop of ${cluster} is off.`
        : `Skydeck: ${cluster} ${row.autostop_down ? 'is torn down' : 'stops'} after ${row.autostop_minutes} idle minutes.`);
      return row;
    } finally {
      await ctx.refresh().catch((e) => ctx.log.warn(`refresh after autostop: ${(e as Error).message}`));
    }
  },
};

async function askChange(current: number | null): Promise<AutostopChange> {
  const choice = await vscode.window.showQuickPick([
    { label: 'Stop when idle', detail: 'Stop the instances after N idle minutes (disks kept; Start resumes)', down: false },
    { label: 'Tear down when idle', detail: 'Terminate the cluster after N idle minutes', down: true },
    ...(current !== null ? [{ label: 'Turn autostop off', detail: `Now: after ${current} idle minutes`, cancel: true }] : []),
  ], { title: 'Skydeck: autostop' });
  if (!choice) throw new Dismissed();
  if ('cancel' in choice) return { cancel: true };
  const text = await vscode.window.showInputBox({
    title: 'Skydeck: idle minutes before autostop', value: String(current ?? 5),
    validateInput: (v) => (/^[0-9]{1,6}$/.test(v.trim()) ? undefined : 'a whole number of minutes'),
  });
  if (text === undefined) throw new Dismissed();
  return { idleMinutes: Number(text.trim()), down: choice.down };
}
