// Bucket rows: typed put/get/list/delete, and the read-time check that refuses rows Skydeck
// would never write (the state file may come with a cloned repository).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  StateStore, deleteBucketRow, getBucket, listBuckets, listRefusedBuckets, putBucket, RefusedBucketRowError, setBucketStatus,
  thisCreator, type BucketRecord,
} from '../../../src/core/state';

function row(over: Partial<BucketRecord> = {}): BucketRecord {
  const me = thisCreator();
  return {
    store: 's3', name: `ok-${randomUUID().slice(0, 8)}`, uid: randomUUID(), location: JSON.stringify({ region: 'eu-west-1' }),
    persistent: 0, owner_cluster_uid: randomUUID(), status: 'CREATING', created_at: Date.now(),
    created_by_user: me.user, created_by_machine: me.machine, last_error: null, users: null, ...over,
  };
}

async function plant(store: StateStore, r: Record<string, unknown>): Promise<void> {
  const cols = Object.keys(r);
  await store.write((db) => db.run(`INSERT INTO buckets (${cols.join(',')}) VALUES (${cols.map(() => '?').join(',')})`, cols.map((c) => r[c] as string | number | null)));
}

describe('state: bucket rows', () => {
  let store: StateStore;
  beforeEach(async () => {
    store = await StateStore.openWorkspace(fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-bkrows-')));
  });
  afterEach(() => store.close());

  it('puts, gets, lists, updates and deletes a row by uid', async () => {
    const r = row();
    await store.write((db) => putBucket(db, r));
    assert.deepEqual(await store.read((db) => getBucket(db, 's3', r.name)), r);
    assert.equal(await store.read((db) => getBucket(db, 'r2', r.name)), undefined);
    assert.equal(await store.write((db) => setBucketStatus(db, r.uid, 'READY')), true);
    assert.equal((await store.read((db) => listBuckets(db)))[0].status, 'READY');
    assert.equal(await store.write((db) => deleteBucketRow(db, randomUUID())), false);
    assert.equal(await store.write((db) => deleteBucketRow(db, r.uid)), true);
    assert.deepEqual(await store.read((db) => listBuckets(db)), []);
  });

  it('refuses to write a row it would refuse to read', async () => {
    await assert.rejects(store.write((db) => putBucket(db, row({ name: 'Bad_Name' }))), /refusing to record bucket "s3:\/\/Bad_Name"/);
    await assert.rejects(store.write((db) => putBucket(db, row({ persistent: 0, owner_cluster_uid: null }))), /names no owner cluster/);
  });

  const bad: [string, Record<string, unknown>, RegExp][] = [
    ['an unknown store', { store: 'ftp' }, /store .* not one Skydeck knows/],
    ['a name invalid for its store (R2 has no dots)', { store: 'r2', name: 'has.dots' }, /name .* may hold only/],
    ['a name with a path in it', { name: '../../etc' }, /name/],
    ['a uid that is not one', { uid: "x' OR 1=1" }, /uid .* not a Skydeck bucket uid/],
    ['a location with extra fields', { location: JSON.stringify({ region: 'us-east-1', endpoint: 'http://evil' }) }, /unknown field/],
    ['a location region with shell text', { location: JSON.stringify({ region: '$(rm -rf ~)' }) }, /location.region/],
    ['a status Skydeck never writes', { status: 'GONE' }, /status/],
    ['an owner that is no uid', { owner_cluster_uid: 'evil' }, /owner_cluster_uid/],
    ['persistent not 0/1', { persistent: 7 }, /persistent/],
    ['a machine id that is none', { created_by_machine: 'x' }, /created_by_machine/],
  ];
  for (const [what, over, why] of bad) {
    it(`refuses a planted row with ${what}: listed apart, never returned, get throws`, async () => {
      const r = { ...row(), ...over };
      await plant(store, r);
      assert.deepEqual(await store.read((db) => listBuckets(db)), []);
      const refused = await store.read((db) => listRefusedBuckets(db));
      assert.equal(refused.length, 1);
      assert.match(refused[0].problem, why);
      if (typeof r.store === 'string' && ['s3', 'r2', 'gcs', 'azure'].includes(r.store)) {
        await assert.rejects(store.read((db) => getBucket(db, r.store as 's3', String(r.name))), (e: unknown) => e instanceof RefusedBucketRowError && /not one Skydeck wrote/.test((e as Error).message));
      }
    });
  }
});
