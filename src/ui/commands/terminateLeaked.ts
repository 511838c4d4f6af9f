import * as vscode from 'vscode';
import { terminateLeakedInstance, type LeakedInstance } from '../../core/ops';
import type { Command, CommandDeps } from './command';
import { isNode } from '../tree/nodeKind';
import { leakDescription, leakLabel } from '../tree/leaksModel';
import { Dismissed, optionsArg } from './support/pickers';
import { withOpsProgress } from './support/progress';
import { notify } from '../notify';

export interface TerminateLeakedOptions {
  /** false skips the modal (tests); the default asks. */
  confirm: boolean;
}

/**
 * Terminate Leaked Instance: terminates one instance the sweep listed and waits for the cloud
 * to confirm; only then does its node go away. Arguments: a Leaked instance node (or a
 * LeakedInstance, for tests), else a pick over the last sweep.
 */
export const terminateLeaked: Command<'log' | 'model' | 'ops'> = {
  id: 'skydeck.terminateLeaked',
  async run(ctx, arg, options) {
    const opts = optionsArg<TerminateLeakedOptions>(options);
    const { leak, otherWorkspace } = await leakFromArg(ctx, arg);
    if (opts.confirm !== false) {
      // Deletes a machine and its disks, possibly someone else's: a modal naming exactly which.
      const pick = await notify.warning(
        `Terminate ${leak.cloud} instance ${leak.instance.id}?`,
        {
          modal: true,
          detail: (otherWorkspace
            ? `It was launched for cluster ${leak.cluster} from another workspace (${leak.workspace}), which may still use it.`
            : `It is tagged for cluster ${leak.cluster} (uid ${leak.uid}), which no cluster in this workspace owns.`)
            + ' The instance and its disks are deleted. This cannot be undone.',
        },
        'Terminate',
      );
      if (pick !== 'Terminate') throw new Dismissed();
    }
    const r = await withOpsProgress(ctx, `Skydeck: terminating ${leak.instance.id}`, { cancellable: false }, (ops) => {
      ops.progress(`Terminating ${leakLabel(leak)} and waiting for the cloud to confirm`);
      return terminateLeakedInstance(ops, leak);
    });
    ctx.log.info(`terminate leaked ${leak.cloud} ${leak.instance.id}: ${r.confirmed ? 'confirmed' : 'not confirmed'}: ${r.message}`);
    if (r.confirmed) {
      ctx.model.leaks.remove(leak);
      void notify.info(`Skydeck: terminated ${leak.instance.id}.`);
    } else {
      // Not proven gone: the node stays, so the user can try again or look in the console.
      void notify.warning(`Skydeck: ${r.message}`, 'Show details').then((pick) => {
        if (pick) ctx.log.show();
      });
    }
    return r;
  },
};

async function leakFromArg(ctx: Pick<CommandDeps, 'model'>, arg: unknown): Promise<{ leak: LeakedInstance; otherWorkspace: boolean }> {
  if (isNode(arg, 'leak')) return { leak: arg.leak, otherWorkspace: arg.otherWorkspace };
  const listed = ctx.model.leaks.instances();
  if (isLeak(arg)) {
    return { leak: arg, otherWorkspace: listed.find((l) => l.leak.cloud === arg.cloud && l.leak.instance.id === arg.instance.id)?.otherWorkspace ?? false };
  }
  if (!listed.length) throw new Error('no leaked instances are listed; run "Skydeck: Find Leaked Instances" first');
  const pick = await vscode.window.showQuickPick(
    listed.map((l) => ({ label: leakLabel(l.leak), description: leakDescription(l.leak, l.otherWorkspace), item: l })),
    { title: 'Skydeck: terminate which leaked instance?' },
  );
  if (!pick) throw new Dismissed();
  return pick.item;
}

function isLeak(v: unknown): v is LeakedInstance {
  const l = v as LeakedInstance;
  return !!l && typeof l.cloud === 'string' && typeof l.uid === 'string' && typeof l.instance?.id === 'string';
}
