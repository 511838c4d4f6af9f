// `skydeck storage ls / delete` on moto's S3, and the down hook: a real local cluster's down
// deletes the non-persistent bucket it owns, with proof.
import { strict as assert } from 'node:assert';
import { randomUUID } from 'node:crypto';
import { runCli } from '../../../src/cli/main';
import type { CliIO } from '../../../src/cli/io';
import { down, launch } from '../../../src/core/ops';
import { getBucket, getCluster, listBuckets, putBucket, thisCreator, workspaceId, type BucketRecord } from '../../../src/core/state';
import { BUCKET_TAGS } from '../../../src/core/storage/buckets';
import { onlyS3, startBucketsEnv, skipWithoutS3, type BucketsEnv } from './bucketsEnv';
import { testOps, writeTask, type TestOps } from '../ops/helpers';

function captureIO(answer?: string): CliIO & { text: () => string; asked: string[] } {
  let text = '';
  const asked: string[] = [];
  return {
    out: (t) => { text += t; }, err: (t) => { text += t; }, outBytes: (d) => { text += d.toString(); },
    ...(answer === undefined ? {} : { ask: async (q: string) => { asked.push(q); return answer; } }),
    text: () => text, asked,
  };
}

describe('skydeck storage and the down hook (moto S3)', function () {
  this.timeout(120_000);
  let env: BucketsEnv;
  let ops: TestOps;
  before(async function () {
    skipWithoutS3(this);
    env = await startBucketsEnv();
  });
  after(async () => env?.teardown());
  beforeEach(async () => {
    ops = await testOps();
    ops.bucketStores = onlyS3(env.factories.s3);
  });
  afterEach(async () => {
    await down(ops, 'bk', { graceSeconds: 1, purge: true }).catch(() => undefined);
    await ops.dispose();
  });

  const cli = (args: string[], io: CliIO) => runCli(args, io, async () => ops);

  async function recorded(over: Partial<BucketRecord> = {}): Promise<BucketRecord> {
    const me = thisCreator();
    const row: BucketRecord = {
      store: 's3', name: `sd-cli-${randomUUID().slice(0, 8)}`, uid: randomUUID(), location: '{}', persistent: 1, owner_cluster_uid: null,
      status: 'READY', created_at: Date.now(), created_by_user: me.user, created_by_machine: me.machine, last_error: null, ...over,
    };
    await ops.store.write((db) => putBucket(db, row));
    const ws = await ops.store.write((db) => workspaceId(db));
    await env.s3().create(row.name, { [BUCKET_TAGS.uid]: row.uid, [BUCKET_TAGS.workspace]: ws });
    return row;
  }

  it('down of a local cluster deletes the non-persistent bucket it owns, with proof, and keeps a persistent one', async () => {
    const task = writeTask(ops.workspaceRoot, 't.yaml', 'resources: {cloud: local}\nrun: echo hi\n');
    await launch(ops, { taskFile: task, cluster: 'bk', detach: true });
    const cluster = (await ops.store.read((db) => getCluster(db, 'bk')))!;
    const owned = await recorded({ persistent: 0, owner_cluster_uid: cluster.uid });
    const kept = await recorded();
    const r = await down(ops, 'bk', { graceSeconds: 1 });
    assert.ok(r.notes.some((n) => n === `deleted bucket ${owned.name} (uid ${owned.uid}): HeadBucket → 404 Not Found`), r.notes.join('\n'));
    assert.equal(await env.s3().exists(owned.name), false);
    assert.deepEqual((await ops.store.read((db) => listBuckets(db))).map((b) => b.name), [kept.name]);
    assert.equal(await env.s3().exists(kept.name), true);
    await env.s3().delete(kept.name);
  });

  it('storage ls shows each row with status, store, owner and persistence; --leaks lists tagged buckets no row owns', async () => {
    const row = await recorded({ status: 'DELETING', last_error: 'interrupted' });
    const stray = `sd-stray-${randomUUID().slice(0, 8)}`;
    await env.s3().create(stray, { [BUCKET_TAGS.uid]: randomUUID(), [BUCKET_TAGS.workspace]: await ops.store.write((db) => workspaceId(db)) });
    let io = captureIO();
    assert.equal(await cli(['storage', 'ls'], io), 0, io.text());
    assert.match(io.text(), /NAME\s+STORE\s+STATUS\s+OWNER CLUSTER\s+PERSISTENT/);
    assert.match(io.text(), new RegExp(`${row.name}\\s+s3\\s+DELETING\\s+-\\s+yes`));
    assert.ok(!io.text().includes(stray));
    io = captureIO();
    assert.equal(await cli(['storage', 'ls', '--leaks'], io), 0, io.text());
    assert.match(io.text(), new RegExp(`of this workspace \\([0-9a-f]{8}\\): 1 found:\\n[^]*${stray}\\s+s3`));
    for (const b of [row.name, stray]) await env.s3().delete(b);
  });

  it('storage delete refuses a bucket Skydeck did not create unless --force, and prints the proof', async () => {
    const name = `plain-${randomUUID().slice(0, 8)}`;
    await env.http.createBucket(name);
    let io = captureIO();
    assert.equal(await cli(['storage', 'delete', name, '--yes'], io), 1);
    assert.match(io.text(), /was not created by Skydeck from this workspace \(it has no Skydeck tag\): it is not deleted\. Add --force/);
    assert.equal(await env.s3().exists(name), true);
    io = captureIO('yes');
    assert.equal(await cli(['storage', 'delete', name, '--force'], io), 0, io.text());
    assert.match(io.asked[0], /Delete bucket s3:\/\/plain-\S+ \(NOT created by Skydeck\) and every object in it\?/);
    assert.match(io.text(), new RegExp(`deleted bucket ${name}: HeadBucket → 404 Not Found`));
    assert.equal(await env.s3().exists(name), false);
  });

  it('storage delete of a recorded bucket asks first (no answer, no delete), then deletes it and its row', async () => {
    const row = await recorded();
    let io = captureIO();
    assert.equal(await cli(['storage', 'delete', row.name], io), 2, 'no terminal to ask: --yes is required');
    io = captureIO('n');
    assert.equal(await cli(['storage', 'delete', row.name], io), 1);
    assert.match(io.text(), /Not deleted/);
    assert.equal(await env.s3().exists(row.name), true);
    io = captureIO();
    assert.equal(await cli(['storage', 'delete', row.name, '-y'], io), 0, io.text());
    assert.equal(io.text(), `deleted bucket ${row.name} (uid ${row.uid}): HeadBucket → 404 Not Found\n`);
    assert.equal(await ops.store.read((db) => getBucket(db, 's3', row.name)), undefined);
  });
});
