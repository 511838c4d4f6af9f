// Launch accepts bucket mounts of supported stores (set up on the nodes, test/integration/ops/
// buckets.test.ts) and git workdirs (cloned on the nodes), refuses unsupported stores naming the
// parsed form, and checks local directories to upload into a bucket before anything is
// provisioned. On ssh/local, a bucket needs the user's explicit opt-in to share credentials,
// refused before provisioning.

import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runCli } from '../../../src/cli/main';
import { OpsError } from '../../../src/core/ops/errors';
import { checkSyncSources } from '../../../src/core/ops/syncFiles';
import { StateStore, listClusters } from '../../../src/core/state';
import { parse } from './helpers';

const refusal = (kind: OpsError['kind'], message: RegExp) => (e: unknown) => {
  assert.ok(e instanceof OpsError, String(e));
  assert.equal(e.kind, kind);
  assert.match(e.message, message);
  return true;
};

describe('launch: bucket mounts pass the source check; unsupported stores are refused; git workdirs pass', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-buckets-'));
    fs.mkdirSync(path.join(dir, 'data'));
    fs.writeFileSync(path.join(dir, 'a.txt'), 'x');
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const check = (yaml: string) => {
    const r = parse(yaml, {});
    assert.deepEqual(r.diagnostics.filter((d) => d.severity === 'error'), []);
    return () => checkSyncSources(r.tasks[0], dir);
  };

  it('bucket mounts of supported stores pass, whatever their form', () => {
    check('file_mounts:\n  /data: {source: s3://my-bucket}\n')();
    check('resources: {cloud: gcp}\nfile_mounts:\n  /a: gs://b-1/x\n  /b: ./a.txt\n  /c: {name: ckpt-1, source: ./data, persistent: false}\n')();
  });

  it('a store Skydeck does not support is refused the same way', () => {
    assert.throws(check('file_mounts:\n  /a: oci://b1\n'), refusal('unavailable', /^file_mounts \/a: oci:\/\/ storage \(not supported by Skydeck\) — this store is parsed but not supported by this version; use S3, GCS, Azure Blob or R2$/));
  });

  it('a local directory to upload that is missing, or a single file, is a usage error', () => {
    assert.throws(check('file_mounts:\n  /a: {name: up-1, store: s3, source: ./nope}\n'), refusal('usage',
      /^file_mounts \/a: source \.\/nope \(.*nope\) does not exist; it is uploaded into bucket up-1$/));
    assert.throws(check('file_mounts:\n  /a: {name: up-1, store: s3, source: [./a.txt, ./gone.txt]}\n'), refusal('usage', /source \.\/gone\.txt .* does not exist/));
    assert.throws(check('file_mounts:\n  /a: {name: up-1, store: s3, source: ./a.txt}\n'), refusal('usage',
      /source \.\/a\.txt is a file; a bucket is filled from a directory: write source: \[\.\/a\.txt\] to upload one file/));
    check('file_mounts:\n  /a: {name: up-1, store: s3, source: [./a.txt, ./data]}\n')();
  });

  it('a git workdir passes the launch checks (it is cloned on the node); a token in its URL is refused', () => {
    check('workdir: {url: https://github.com/o/r.git, ref: v1.0}\n')();
    check('workdir: {url: git@github.com:o/r.git}\n')();
    assert.throws(() => checkSyncSources({ ...parse('run: x\n', {}).tasks[0], workdir: { url: 'https://u:ghp_x@github.com/o/r.git' } }, dir),
      refusal('usage', /carries a password or token; remove it and set GIT_TOKEN/));
  });
});

describe('cli: a bucket mount on the local cloud without the credentials opt-in is refused with nothing provisioned', () => {
  const saved = { ...process.env };
  afterEach(() => {
    for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
    Object.assign(process.env, saved);
  });

  it('validate exits 0; launch exits 2 naming the mount and how to opt in', async () => {
    const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-buckets-ws-'));
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-buckets-task-'));
    delete process.env.SKYDECK_SHARE_CREDENTIALS;
    Object.assign(process.env, { SKYDECK_WORKSPACE: workspace, HOME: fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-buckets-home-')) });
    const f = path.join(dir, 'bucket.yaml');
    fs.writeFileSync(f, 'resources: {cloud: local}\nfile_mounts:\n  /data: s3://my-bucket\nrun: ls /data\n');
    let out = '';
    let err = '';
    const io = { out: (t: string) => (out += t), outBytes: (d: Buffer) => (out += d.toString()), err: (t: string) => (err += t) };
    assert.equal(await runCli(['validate', f], io), 0, err);
    err = '';
    assert.equal(await runCli(['launch', f, '-c', 'refused', '-y', '-d'], io), 2, err);
    assert.match(err, /file_mounts \/data: s3:\/\/my-bucket: this machine's local cluster has no identity of its own to read S3 with, and Skydeck copies your credentials to a node only if you opt in: set skydeck\.storage\.shareCredentials to true .*--share-credentials or SKYDECK_SHARE_CREDENTIALS=1/);
    const store = await StateStore.openWorkspace(workspace);
    try {
      assert.deepEqual(await store.read((db) => listClusters(db)), []);
    } finally {
      store.close();
      for (const d of [workspace, dir, process.env.HOME as string]) fs.rmSync(d, { recursive: true, force: true });
    }
  });

  it('check says whether credential sharing is on (SKYDECK_SHARE_CREDENTIALS)', async () => {
    const run = async (): Promise<string> => {
      let out = '';
      await runCli(['check', 'local'], { out: (t: string) => (out += t), outBytes: () => undefined, err: () => undefined });
      return out;
    };
    delete process.env.SKYDECK_SHARE_CREDENTIALS;
    assert.match(await run(), /^storage: credential sharing is off: bucket mounts on ssh\/local nodes are refused.*SKYDECK_SHARE_CREDENTIALS=1\)$/m);
    process.env.SKYDECK_SHARE_CREDENTIALS = '1';
    assert.match(await run(), /^storage: credential sharing is ON \(skydeck\.storage\.shareCredentials\): bucket mounts on ssh\/local nodes get your AWS keys; R2 credentials (found|missing, so r2:\/\/ mounts will fail: .*)$/m);
  });
});
