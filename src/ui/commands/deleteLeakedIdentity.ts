import * as vscode from 'vscode';
import { deleteStrayIdentity } from '../../core/ops';
import type { LeakedIdentity } from '../../core/provision';
import type { Command, CommandDeps } from './command';
import { isNode } from '../tree/nodeKind';
import { Dismissed, optionsArg } from './support/pickers';
import { withOpsProgress } from './support/progress';
import { notify } from '../notify';

export interface DeleteLeakedIdentityOptions {
  /** false skips the modal (tests); the default asks. */
  confirm: boolean;
}

/**
 * Delete Leaked Identity: deletes a cluster identity the sweep listed (AWS: the bucket role and
 * its instance profile) once no instance of its cluster lives, and drops its node only when
 * the cloud proved it gone. Arguments: an identity node (or a LeakedIdentity, for tests), else a pick.
 */
export const deleteLeakedIdentity: Command<'log' | 'model' | 'ops'> = {
  id: 'skydeck.deleteLeakedIdentity',
  async run(ctx, arg, options) {
    const opts = optionsArg<DeleteLeakedIdentityOptions>(options);
    const id = await identityFromArg(ctx, arg);
    if (opts.confirm !== false) {
      const pick = await notify.warning(`Delete ${id.cloud} ${id.kind} ${id.name}?`, {
        modal: true,
        detail: `It was made for cluster ${id.cluster} (uid ${id.uid}, workspace ${id.workspace}), which no cluster row owns. Its instance profile goes with it. This cannot be undone.`,
      }, 'Delete');
      if (pick !== 'Delete') throw new Dismissed();
    }
    const r = await withOpsProgress(ctx, `Skydeck: deleting ${id.name}`, { cancellable: false }, (ops) => {
      ops.progress(`Deleting ${id.kind} ${id.name} and checking that it is gone`);
      return deleteStrayIdentity(ops, id);
    });
    ctx.log.info(`delete leaked ${id.cloud} ${id.kind} ${id.name}: ${r.deleted ? 'deleted' : 'kept'}: ${r.message}`);
    if (r.deleted) {
      ctx.model.leaks.removeIdentity(id);
      void notify.info(`Skydeck: ${r.message}.`);
    } else {
      void notify.warning(`Skydeck: ${r.message}`, 'Show details').then((p) => {
        if (p) ctx.log.show();
      });
    }
    return r;
  },
};

async function identityFromArg(ctx: Pick<CommandDeps, 'model'>, arg: unknown): Promise<LeakedIdentity> {
  if (isNode(arg, 'leak-identity')) return arg.identity;
  if (isIdentity(arg)) return arg;
  const listed = ctx.model.leaks.identities();
  if (!listed.length) throw new Error('no leaked identities are listed; run "Skydeck: Find Leaked Instances" first');
  const pick = await vscode.window.showQuickPick(
    listed.map((i) => ({ label: `${i.cloud} ${i.name}`, description: `${i.kind} · cluster ${i.cluster}`, item: i })),
    { title: 'Skydeck: delete which leaked identity?' },
  );
  if (!pick) throw new Dismissed();
  return pick.item;
}

function isIdentity(v: unknown): v is LeakedIdentity {
  const i = v as LeakedIdentity;
  return !!i && typeof i.cloud === 'string' && typeof i.uid === 'string' && typeof i.name === 'string' && typeof i.kind === 'string';
}
