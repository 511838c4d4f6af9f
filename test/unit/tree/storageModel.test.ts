// The Clusters view's "Storage" section, without VS Code: when it shows, what is under it, a
// failed listing shown (not taken for "no buckets"), removal after a confirmed delete, and the
// text of each bucket node; loaded by ClustersModel.reload with the clusters.
import assert from 'node:assert/strict';
import type { BucketListing } from '../../../src/core/ops/storageListing';
import { ClustersModel } from '../../../src/ui/tree/clustersModel';
import { StorageModel, bucketDescription, bucketTooltip } from '../../../src/ui/tree/storageModel';

const bucket = (name: string, over: Partial<BucketListing> = {}): BucketListing => ({ store: 's3', name, status: 'READY', persistent: true, ...over });

describe('ui/tree storage model', () => {
  it('hidden with no buckets; sorted entries and a summary once there are some', () => {
    const m = new StorageModel();
    assert.equal(m.visible, false);
    m.set([]);
    assert.equal(m.visible, false);
    assert.deepEqual(m.entries(), []);
    m.set([bucket('zeta'), bucket('alpha', { persistent: false, ownerCluster: 'train' })]);
    assert.equal(m.visible, true);
    assert.deepEqual(m.entries().map((e) => e.kind === 'bucket' && e.bucket.name), ['alpha', 'zeta']);
    assert.equal(m.summary, '2 · 1 deleted at down');
  });

  it('a failed listing shows as unknown and keeps the buckets last seen; the next success clears it', () => {
    const m = new StorageModel();
    m.failed('state is locked');
    assert.equal(m.visible, true);
    assert.deepEqual(m.entries(), [{ kind: 'storage-error', message: 'state is locked' }]);
    m.set([bucket('data')]);
    m.failed('again');
    assert.deepEqual(m.entries().map((e) => e.kind), ['bucket', 'storage-error']);
    assert.equal(m.summary, '1 · listing failed');
    m.set([bucket('data')]);
    assert.deepEqual(m.entries().map((e) => e.kind), ['bucket']);
  });

  it('remove: only the bucket of that name and store, and tells the view', () => {
    let changes = 0;
    const m = new StorageModel(() => changes++);
    m.set([bucket('data'), bucket('data', { store: 'gcs' })]);
    assert.equal(m.remove('data', 'r2'), false);
    assert.equal(changes, 0);
    assert.equal(m.remove('data', 's3'), true);
    assert.equal(changes, 1);
    assert.deepEqual(m.all().map((b) => b.store), ['gcs']);
  });

  it('node text: store, status, owner, fate at down, problem', () => {
    const b = bucket('ckpt', { persistent: false, ownerCluster: 'train', problem: 'delete not confirmed' });
    assert.equal(bucketDescription(b), 's3 · READY · cluster train · deleted at down · delete not confirmed');
    assert.equal(bucketDescription(bucket('keep')), 's3 · READY · kept after down');
    assert.match(bucketTooltip(b), /^s3 bucket ckpt \(READY\), created by Skydeck\ncreated for cluster train\npersistent: false: deleted .*\nproblem: delete not confirmed$/);
  });
});

describe('ui/tree ClustersModel loads the Storage section', () => {
  it('lists buckets on reload; a failing listing does not fail the clusters', async () => {
    let answer: BucketListing[] | Error = [bucket('data')];
    let notified = 0;
    const model = new ClustersModel({
      listClusters: async () => [],
      queue: async () => [],
      listBuckets: async () => {
        if (answer instanceof Error) throw answer;
        return answer;
      },
    });
    model.onDidChange(() => notified++);
    await model.reload();
    assert.deepEqual(model.storage.all().map((b) => b.name), ['data']);
    assert.equal(notified, 1);
    answer = new Error('no state');
    await model.reload();
    assert.deepEqual(model.storage.entries().map((e) => e.kind), ['bucket', 'storage-error']);
    answer = [];
    await model.reload();
    assert.equal(model.storage.visible, false);
  });

  it('a source without listBuckets never shows the section', async () => {
    const model = new ClustersModel({ listClusters: async () => [], queue: async () => [] });
    await model.reload();
    assert.equal(model.storage.visible, false);
  });
});
