import { OpsError, type OpsContext } from '../../core/ops';
import { deleteRecordedBucketForced } from '../../core/ops/bucketDelete';
import { BUCKET_TAGS } from '../../core/storage/buckets';
import type { StoreKind } from '../../core/storage/types';
import { listBuckets, workspaceId } from '../../core/state';
import { bucketStoreOf, newBucketLocation } from '../../core/ops/bucketStores';
import { bucketNameProblem } from '../../core/task/bucketNames';
import { UsageError, type ParsedArgs } from '../args';
import { EXIT, type CliIO } from '../io';

const STORES: StoreKind[] = ['s3', 'gcs', 'azure', 'r2'];

/**
 * `skydeck storage delete NAME`: a bucket this state records (and whose tag is its row's), or
 * one tagged by this workspace that no row owns (a leak), is deleted after confirmation; any
 * other bucket only with --force. The store's proof that it is gone is printed.
 */
export async function storageDelete(io: CliIO, ctx: OpsContext, name: string, flags: ParsedArgs['flags']): Promise<number> {
  const storeFlag = flags.store;
  if (storeFlag !== undefined && !STORES.includes(storeFlag as StoreKind)) throw new UsageError(`--store ${String(storeFlag)} is not one of ${STORES.join(', ')}`);
  const force = !!flags.force;
  const rows = (await ctx.store.read((db) => listBuckets(db))).filter((r) => r.name === name && (!storeFlag || r.store === storeFlag));
  if (rows.length > 1) throw new UsageError(`bucket ${name} is recorded in ${rows.map((r) => r.store).join(' and ')}: name one with --store`);
  const row = rows[0];
  const store = (row?.store ?? storeFlag ?? 's3') as StoreKind;
  const label = `${store}://${name}`;
  // Some SDKs put the name into the request path unencoded (GCS: "b/o/k" is object k of bucket b).
  const problem = bucketNameProblem(store, name);
  if (problem) throw new UsageError(`${JSON.stringify(name)} is not a valid ${store} bucket name: it ${problem}`);
  const bs = row ? undefined : bucketStoreOf(ctx, store, newBucketLocation(store));
  let what = 'created by Skydeck';
  if (!row) {
    if (!(await bs!.exists(name))) throw new OpsError('usage', `${label} does not exist and no bucket of that name is recorded${storeFlag ? '' : ' (use --store for another store)'}`);
    const tags = await bs!.tags(name);
    const ws = await ctx.store.write((db) => workspaceId(db));
    const ours = !!tags[BUCKET_TAGS.uid] && tags[BUCKET_TAGS.workspace] === ws;
    if (!ours && !force) {
      throw new OpsError('failed', `${label} was not created by Skydeck from this workspace (${tags[BUCKET_TAGS.uid] ? `it carries another workspace's tag, ${tags[BUCKET_TAGS.workspace] ?? '?'}` : 'it has no Skydeck tag'}): ` +
        'it is not deleted. Add --force to delete it and every object in it anyway');
    }
    what = ours ? 'created by Skydeck, no longer recorded' : 'NOT created by Skydeck';
  }
  if (!flags.yes) {
    if (!io.ask) throw new UsageError(`deleting ${label} deletes every object in it and cannot be undone; pass --yes to confirm`);
    const answer = await io.ask(`Delete bucket ${label} (${what}) and every object in it? This cannot be undone. [y/N] `);
    if (!/^y(es)?$/i.test(answer.trim())) {
      io.out('Not deleted.\n');
      return EXIT.failed;
    }
  }
  let proof;
  if (row) {
    proof = await deleteRecordedBucketForced(ctx, row, force);
  } else {
    proof = await bs!.delete(name);
  }
  io.out(`deleted bucket ${name}${row ? ` (uid ${row.uid})` : ''}: ${proof.proof}\n`);
  return EXIT.ok;
}
