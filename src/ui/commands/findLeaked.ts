import * as vscode from 'vscode';
import { findLeakedInstances, leakVerdict, unknownLines } from '../../core/ops';
import type { Command } from './command';
import { optionsArg } from './support/pickers';
import { withOpsProgress } from './support/progress';
import { notify } from '../notify';

export interface FindLeakedOptions {
  /** Sweep only these clouds (tests); default every cloud Skydeck has a provider for. */
  clouds: string[];
}

/**
 * Find Leaked Instances: lists instances with Skydeck tags that no cluster row owns (leak
 * invariant 5) into the Clusters view's "Leaked instances" node. Read-only: terminating is
 * a separate, confirmed action per instance.
 */
export const findLeaked: Command<'log' | 'model' | 'ops'> = {
  id: 'skydeck.findLeaked',
  async run(ctx, options) {
    const opts = optionsArg<FindLeakedOptions>(options);
    const sweep = await withOpsProgress(ctx, 'Skydeck: looking for leaked instances', { cancellable: false }, async (ops) => {
      if (!opts.clouds && !ops.providers?.clouds.length) return undefined;
      ops.progress(`Listing tagged instances on ${(opts.clouds ?? ops.providers!.clouds).join(', ')}`);
      return findLeakedInstances(ops, opts.clouds);
    });
    if (!sweep) {
      void notify.info('Skydeck: no cloud is available in this build, so nothing can leak; local and ssh clusters own no instances.');
      return undefined;
    }
    ctx.model.leaks.set(sweep);
    const log = ctx.log;
    for (const l of [...sweep.thisWorkspace, ...sweep.otherWorkspaces]) {
      log.warn(`leaked: ${l.cloud} ${l.instance.id} (${l.instance.status}) cluster ${l.cluster} uid ${l.uid} workspace ${l.workspace}${l.workspace === sweep.workspaceId ? ' (this one)' : ''}`);
    }
    for (const line of unknownLines(sweep)) log.error(`leak sweep could not list ${line}`);
    const found = sweep.thisWorkspace.length + sweep.otherWorkspaces.length;
    if (found || sweep.errors.length) void vscode.commands.executeCommand('skydeck.clusters.focus');
    const what = found
      ? `found ${found} leaked instance${found > 1 ? 's' : ''}${sweep.otherWorkspaces.length ? ` (${sweep.otherWorkspaces.length} from other workspaces)` : ''}; see "Leaked instances" in the Clusters view`
      : 'no leaked instances';
    if (sweep.errors.length) {
      // A failed listing means "unknown", never "none": say so next to whatever was found.
      void notify.error(`Skydeck: leaked instances: ${leakVerdict(found, sweep)}.`, 'Show details').then((pick) => {
        if (pick) log.show();
      });
    } else if (found) {
      void notify.warning(`Skydeck: ${what}.`);
    } else {
      void notify.info(`Skydeck: ${what}.`);
    }
    return sweep;
  },
};
