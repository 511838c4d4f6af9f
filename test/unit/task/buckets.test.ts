// Bucket file_mounts and git workdirs: every accepted form parses to its typed value, and
// SkyPilot-style task files using them pass both the editor's schema and Skydeck's parser.

import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import Ajv from 'ajv';
import { parseAllDocuments } from 'yaml';
import { describeFileMount, parseTaskFile, type FileMount } from '../../../src/core/task';
import { azureAccountProblem, bucketNameProblem, nearbyBucketName } from '../../../src/core/task/bucketNames';
import { parse, task } from './helpers';

const mounts = (text: string): Record<string, FileMount> => task(text).fileMounts;
const one = (value: string, resources = 'resources: {cloud: aws}\n'): FileMount => mounts(`${resources}file_mounts:\n  /d: ${value}\n`)['/d'];

describe('task YAML: bucket file_mounts', () => {
  it('a bucket URL as the value is an existing bucket, downloaded (COPY), for each store', () => {
    assert.deepEqual(one('s3://my-bucket/a/b/'), { kind: 'bucket', mount: { kind: 'url', url: 's3://my-bucket/a/b/', store: 's3', bucket: 'my-bucket', prefix: 'a/b', mode: 'COPY' } });
    assert.deepEqual(one('gs://my_bucket.example'), { kind: 'bucket', mount: { kind: 'url', url: 'gs://my_bucket.example', store: 'gcs', bucket: 'my_bucket.example', prefix: '', mode: 'COPY' } });
    assert.deepEqual(one('r2://r2-bucket/x'), { kind: 'bucket', mount: { kind: 'url', url: 'r2://r2-bucket/x', store: 'r2', bucket: 'r2-bucket', prefix: 'x', mode: 'COPY' } });
    assert.deepEqual(one('https://acct01.blob.core.windows.net/cont-1/p/q'), {
      kind: 'bucket',
      mount: { kind: 'url', url: 'https://acct01.blob.core.windows.net/cont-1/p/q', store: 'azure', bucket: 'cont-1', container: 'cont-1', account: 'acct01', prefix: 'p/q', mode: 'COPY' },
    });
  });

  it('{source: URL} defaults to MOUNT; mode is case-insensitive; a matching store is allowed', () => {
    assert.deepEqual(one('{source: s3://my-bucket}'), { kind: 'bucket', mount: { kind: 'url', url: 's3://my-bucket', store: 's3', bucket: 'my-bucket', prefix: '', mode: 'MOUNT' } });
    assert.equal((one('{source: gs://b-1/x, mode: copy}') as { mount: { mode: string } }).mount.mode, 'COPY');
    assert.equal((one('{source: gs://b-1, mode: Mount_Cached, store: GCS}') as { mount: { mode: string } }).mount.mode, 'MOUNT_CACHED');
  });

  it('{name} creates or reuses a bucket: persistent by default, store from the task cloud', () => {
    const named = (store: string, persistent = true) => ({ kind: 'bucket', mount: { kind: 'named', store, name: 'ckpt-1', mode: 'MOUNT', persistent } });
    assert.deepEqual(one('{name: ckpt-1}'), named('s3'));
    assert.deepEqual(one('{name: ckpt-1}', 'resources: {infra: gcp/us-central1}\n'), named('gcs'));
    assert.deepEqual(one('{name: ckpt-1, persistent: false}', 'resources: {cloud: azure}\n'), named('azure', false));
    assert.deepEqual(one('{name: ckpt-1, store: r2}', ''), named('r2'));
    assert.deepEqual(one('{name: ckpt-1}', 'resources:\n  any_of: [{cloud: gcp, cpus: 4}, {cloud: gcp, cpus: 8}]\n'), named('gcs'));
  });

  it('{name, source: local} uploads a directory or a list; config and type are kept, and resolved into tuning', () => {
    assert.deepEqual(one('{name: up-1, source: ./data, mode: COPY}'), { kind: 'bucket', mount: { kind: 'named', store: 's3', name: 'up-1', mode: 'COPY', persistent: true, localSource: './data' } });
    assert.deepEqual(one('{name: up-1, source: [a.txt, d/b.txt]}'), { kind: 'bucket', mount: { kind: 'named', store: 's3', name: 'up-1', mode: 'MOUNT', persistent: true, localFiles: ['a.txt', 'd/b.txt'] } });
    assert.deepEqual(one('{name: up-1, mode: MOUNT_CACHED, type: model_checkpoint_rw, config: {mount_cached: {transfers: 2}}}'), {
      kind: 'bucket', mount: { kind: 'named', store: 's3', name: 'up-1', mode: 'MOUNT_CACHED', persistent: true, tuning: { vfs_read_chunk_size: '32M', transfers: 2 } },
      config: { mount_cached: { transfers: 2 } }, preset: 'MODEL_CHECKPOINT_RW',
    });
  });

  it('stores SkyPilot has and Skydeck does not are kept with a warning, not an error', () => {
    const r = parse('resources: {cloud: aws}\nfile_mounts:\n  /a: cos://us-east/b1\n  /b: {name: v1, store: volume}\n  /c: {name: o1, store: oci}\n');
    assert.equal(r.ok, true);
    assert.deepEqual(r.tasks[0].fileMounts, { '/a': { kind: 'unsupported', store: 'cos://' }, '/b': { kind: 'unsupported', store: 'volume' }, '/c': { kind: 'unsupported', store: 'OCI' } });
    assert.deepEqual(r.diagnostics.map((d) => [d.severity, d.line, d.path]), [['warning', 3, 'file_mounts["/a"]'], ['warning', 4, 'file_mounts["/b"].store'], ['warning', 5, 'file_mounts["/c"].store']]);
  });

  it('a bucket built from an env given only at launch is checked at launch', () => {
    const text = 'envs: {B: null}\nfile_mounts:\n  /a: s3://$B/x\n  /b: {name: $B, store: s3}\n';
    const r = parse(text);
    assert.deepEqual(r.diagnostics, []);
    assert.deepEqual(r.tasks[0].fileMounts, { '/a': { kind: 'deferred' }, '/b': { kind: 'deferred' } });
    const bad = parse(text, { B: 'Bad_Name' });
    assert.deepEqual(bad.diagnostics.map((d) => [d.line, d.path]), [[3, 'file_mounts["/a"]'], [4, 'file_mounts["/b"].name']]);
    const good = parse(text, { B: 'good-name' });
    assert.equal(good.ok, true);
    assert.equal(describeFileMount(good.tasks[0].fileMounts['/a']), 's3://good-name/x (COPY)');
  });

  it('describes each form in one phrase for launch output', () => {
    assert.equal(describeFileMount(one('{source: gs://b-1/x, mode: MOUNT_CACHED}')), 'gs://b-1/x (MOUNT_CACHED)');
    assert.equal(describeFileMount(one('{name: ckpt-1, persistent: false}')), 's3://ckpt-1 (MOUNT, created if missing, deleted at down)');
    assert.equal(describeFileMount(one('{name: up-1, source: ./d, store: azure}')), 'azure:up-1 (MOUNT, created if missing, uploaded from ./d, kept after down)');
    assert.equal(describeFileMount(one('./local')), './local');
  });
});

describe('task YAML: git workdir', () => {
  it('https, ssh and scp-like URLs, with a branch, tag or commit ref or none', () => {
    for (const url of ['https://github.com/o/r.git', 'http://git.local:8080/o/r', 'ssh://git@host:2222/o/r.git', 'git@github.com:o/r.git', 'host:path/r']) {
      assert.deepEqual(task(`workdir: {url: "${url}"}\n`).workdir, { url });
    }
    for (const ref of ['main', 'release/1.x', 'v1.2.0', '0123456789abcdef0123456789abcdef01234567']) {
      assert.deepEqual(task(`workdir: {url: https://h/o/r, ref: ${ref}}\n`).workdir, { url: 'https://h/o/r', ref });
    }
  });
});

describe('SkyPilot-style bucket task files (test/fixtures/buckets)', () => {
  const dir = join(__dirname, '..', '..', 'fixtures', 'buckets');
  const files = readdirSync(dir).filter((f) => f.endsWith('.yaml')).sort();
  const validate = new Ajv({ strict: false, allErrors: true }).compile(JSON.parse(readFileSync(join(__dirname, '..', '..', '..', 'schemas', 'task.schema.json'), 'utf8')));

  it('there are fixtures to check', () => assert.deepEqual(files, ['azure-r2-git.yaml', 'checkpoints.yaml', 'datasets.yaml', 'managed-job.yaml']));

  for (const file of files) {
    it(`${file}: the editor's schema accepts it and Skydeck parses it without a diagnostic`, async () => {
      for (const doc of parseAllDocuments(readFileSync(join(dir, file), 'utf8')) as unknown as { toJS(): unknown }[]) {
        assert.ok(validate(doc.toJS()), `${file}: ${JSON.stringify(validate.errors)}`);
      }
      const r = await parseTaskFile(join(dir, file));
      assert.deepEqual(r.diagnostics, []);
      for (const m of Object.values(r.tasks[0].fileMounts)) assert.ok(m.kind === 'copy' || m.kind === 'bucket', JSON.stringify(m));
    });
  }

  it('the fixtures parse to the expected forms', async () => {
    const load = async (f: string) => (await parseTaskFile(join(dir, f))).tasks[0];
    const data = await load('datasets.yaml');
    const said = Object.fromEntries(Object.entries(data.fileMounts).map(([k, m]) => [k, describeFileMount(m)]));
    assert.deepEqual(said, {
      '/local-data': '~/datasets',
      '/corpus': 's3://example-open-corpus (COPY)',
      '/shard-0001': 'gs://example-tpu-data/imagenet/train-00001-of-01024 (COPY)',
      '/big-corpus': 's3://example-public-archive (MOUNT)',
      '/staged': 's3://bucket-demo-staged-data (COPY, created if missing, uploaded from ~/datasets, kept after down)',
      '/outputs': 's3://bucket-demo-outputs (MOUNT, created if missing, kept after down)',
      '/bundle': 's3://bucket-demo-bundle (MOUNT, created if missing, uploaded from ~/notes/readme.txt, ~/datasets, kept after down)',
    });
    const ckpt = await load('checkpoints.yaml');
    assert.deepEqual(ckpt.fileMounts['/scratch'], { kind: 'bucket', mount: { kind: 'named', store: 'gcs', name: 'ckpt-scratch-run-42', mode: 'MOUNT', persistent: false } });
    assert.equal((ckpt.fileMounts['/checkpoints'] as { preset?: string }).preset, 'MODEL_CHECKPOINT_RW');
    const job = await load('managed-job.yaml');
    assert.equal(describeFileMount(job.fileMounts['~/code-copy']), 's3://job-code-upload-7 (COPY, created if missing, uploaded from ./src, deleted at down)');
    assert.equal(describeFileMount(job.fileMounts['/reference']), 's3://example-reference-pockets (MOUNT)');
    const cross = await load('azure-r2-git.yaml');
    assert.deepEqual(cross.workdir, { url: 'https://github.com/example-org/trainer.git', ref: 'v2.1.0' });
    assert.deepEqual(cross.fileMounts['/nyc-taxi'], {
      kind: 'bucket',
      mount: { kind: 'url', url: 'https://exampleopendata.blob.core.windows.net/nyctlc/yellow', store: 'azure', bucket: 'nyctlc', container: 'nyctlc', account: 'exampleopendata', prefix: 'yellow', mode: 'COPY' },
    });
    assert.equal(describeFileMount(cross.fileMounts['/artifacts']), 'r2://cross-store-artifacts (MOUNT, created if missing, kept after down)');
    assert.equal(describeFileMount(cross.fileMounts['/container']), 'azure:cross-store-scratch (MOUNT, created if missing, kept after down)');
  });
});

describe('bucket naming rules per store', () => {
  const ok = (store: 's3' | 'gcs' | 'azure' | 'r2', names: string[]) => {
    for (const n of names) assert.equal(bucketNameProblem(store, n), undefined, `${store} ${n}`);
  };
  const bad = (store: 's3' | 'gcs' | 'azure' | 'r2', names: string[]) => {
    for (const n of names) assert.ok(bucketNameProblem(store, n), `${store} ${n} should be refused`);
  };

  it('accepts names at the edges of each rule', () => {
    ok('s3', ['abc', 'my.bucket-1', 'a'.repeat(63), '1-2.3', 'xn-ok']);
    ok('r2', ['abc', 'r2-bucket-9', 'a'.repeat(63)]);
    ok('gcs', ['abc', 'my_bucket.example', `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(30)}`]);
    ok('azure', ['abc', 'cont-1', 'a'.repeat(63)]);
    assert.equal(azureAccountProblem('a'.repeat(24)), undefined);
  });

  it('refuses names just past each rule', () => {
    bad('s3', ['ab', 'a'.repeat(64), '-abc', 'abc-', 'a_b', 'a..b', '10.0.0.1', 'xn--abc', 'sthree-abc', 'abc-s3alias', 'abc--ol-s3', 'abc.mrap', 'abc--x-s3', 'ABC']);
    bad('r2', ['my.bucket', 'a_b', 'ab']);
    bad('gcs', ['a'.repeat(64), `${'a'.repeat(64)}.b`, 'a..b', 'a.-b', 'goog-data', 'my-g00gle', '10.0.0.1', '_ab']);
    bad('azure', ['a--b', 'a.b', 'a_b', 'ab', '-ab']);
    assert.ok(azureAccountProblem('a'.repeat(25)));
    assert.ok(azureAccountProblem('ab'));
    assert.ok(azureAccountProblem('my-acct'));
  });

  it('offers a valid nearby name only when one exists', () => {
    assert.equal(nearbyBucketName('s3', 'My_Data__Set'), 'my-data-set');
    assert.equal(nearbyBucketName('gcs', 'My_Data'), 'my_data');
    assert.equal(nearbyBucketName('s3', 'ab'), undefined);
  });
});
