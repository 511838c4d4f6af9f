import * as vscode from 'vscode';
import { deleteBucket as deleteBucketOp, type BucketDeleteResult, type BucketListing } from '../../core/ops';
import type { Command, CommandDeps } from './command';
import { isNode } from '../tree/nodeKind';
import { bucketDescription } from '../tree/storageModel';
import { Dismissed, optionsArg } from './support/pickers';
import { withOpsProgress } from './support/progress';
import { notify } from '../notify';

export interface DeleteBucketOptions {
  /** false skips the modal (tests); the default asks. */
  confirm: boolean;
  /** Also delete a bucket Skydeck did not create (the CLI's --force); never set from the tree. */
  force: boolean;
}

/**
 * Delete Bucket…: deletes one bucket the Storage section lists, and its objects, after a modal
 * naming it; its node goes only once the store confirmed. Arguments: a bucket node (or a
 * BucketListing, for tests), else a pick over the listed buckets.
 */
export const deleteBucket: Command<'log' | 'model' | 'ops'> = {
  id: 'skydeck.deleteBucket',
  async run(ctx, arg, options): Promise<BucketDeleteResult> {
    const opts = optionsArg<DeleteBucketOptions>(options);
    const bucket = await bucketFromArg(ctx, arg);
    if (opts.confirm !== false) {
      const pick = await notify.warning(
        `Delete ${bucket.store} bucket ${bucket.name} and everything in it?`,
        {
          modal: true,
          detail: (bucket.ownerCluster ? `It was created for cluster ${bucket.ownerCluster}, whose jobs may still read or write it. ` : '')
            + 'Every object in the bucket is deleted. This cannot be undone.',
        },
        'Delete',
      );
      if (pick !== 'Delete') throw new Dismissed();
    }
    const r = await withOpsProgress(ctx, `Skydeck: deleting bucket ${bucket.name}`, { cancellable: false }, (ops) => {
      ops.progress(`Deleting ${bucket.store} bucket ${bucket.name} and waiting for the store to confirm`);
      return deleteBucketOp(ops, bucket.name, bucket.store, opts.force === true);
    });
    ctx.log.info(`delete bucket ${bucket.store} ${bucket.name}: ${r.deleted ? 'confirmed' : 'not confirmed'}: ${r.message}`);
    if (r.deleted) {
      ctx.model.storage.remove(bucket.name, bucket.store);
      void notify.info(`Skydeck: deleted bucket ${bucket.name}.`);
    } else {
      // Not proven gone: the node stays, so the user can try again.
      void notify.warning(`Skydeck: ${r.message}`, 'Show details').then((pick) => {
        if (pick) ctx.log.show();
      });
    }
    return r;
  },
};

async function bucketFromArg(ctx: Pick<CommandDeps, 'model'>, arg: unknown): Promise<BucketListing> {
  if (isNode(arg, 'bucket')) return arg.bucket;
  if (isBucket(arg)) return arg;
  const listed = ctx.model.storage.all();
  if (!listed.length) throw new Error('no buckets created by Skydeck are listed in this workspace');
  const pick = await vscode.window.showQuickPick(
    listed.map((b) => ({ label: b.name, description: bucketDescription(b), item: b })),
    { title: 'Skydeck: delete which bucket?' },
  );
  if (!pick) throw new Dismissed();
  return pick.item;
}

function isBucket(v: unknown): v is BucketListing {
  const b = v as BucketListing;
  return !!b && typeof b.name === 'string' && typeof b.store === 'string' && typeof b.persistent === 'boolean';
}
