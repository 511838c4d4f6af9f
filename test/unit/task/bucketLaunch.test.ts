// Launch keeps refusing bucket mounts for now, but names the parsed form (git workdirs pass); local
// directories to upload into a bucket are checked first, so a missing one is reported as such.

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

describe('launch: bucket mounts and git workdirs are refused with their parsed form', () => {
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

  it('an existing bucket: the URL and mode, kind unavailable', () => {
    assert.throws(check('file_mounts:\n  /data: {source: s3://my-bucket}\n'), refusal('unavailable',
      /^file_mounts \/data: s3:\/\/my-bucket \(MOUNT\) — bucket mounts are parsed but not yet run by this version; only local paths are$/));
  });

  it('every bucket mount is named in one message, local copies are not', () => {
    const yaml = 'resources: {cloud: gcp}\nfile_mounts:\n  /a: gs://b-1/x\n  /b: ./a.txt\n  /c: {name: ckpt-1, source: ./data, persistent: false}\n';
    assert.throws(check(yaml), refusal('unavailable',
      /^file_mounts \/a: gs:\/\/b-1\/x \(COPY\); file_mounts \/c: gs:\/\/ckpt-1 \(MOUNT, created if missing, uploaded from \.\/data, deleted at down\) — bucket mounts/));
  });

  it('a store Skydeck does not support is refused the same way', () => {
    assert.throws(check('file_mounts:\n  /a: oci://b1\n'), refusal('unavailable', /^file_mounts \/a: oci:\/\/ storage \(not supported by Skydeck\) — bucket mounts are parsed but not yet run/));
  });

  it('a local directory to upload that is missing, or a single file, is a usage error before the refusal', () => {
    assert.throws(check('file_mounts:\n  /a: {name: up-1, store: s3, source: ./nope}\n'), refusal('usage',
      /^file_mounts \/a: source \.\/nope \(.*nope\) does not exist; it is uploaded into bucket up-1$/));
    assert.throws(check('file_mounts:\n  /a: {name: up-1, store: s3, source: [./a.txt, ./gone.txt]}\n'), refusal('usage', /source \.\/gone\.txt .* does not exist/));
    assert.throws(check('file_mounts:\n  /a: {name: up-1, store: s3, source: ./a.txt}\n'), refusal('usage',
      /source \.\/a\.txt is a file; a bucket is filled from a directory: write source: \[\.\/a\.txt\] to upload one file/));
    assert.throws(check('file_mounts:\n  /a: {name: up-1, store: s3, source: [./a.txt, ./data]}\n'), refusal('unavailable', /bucket mounts are parsed/));
  });

  it('a git workdir passes the launch checks (it is cloned on the node); a token in its URL is refused', () => {
    check('workdir: {url: https://github.com/o/r.git, ref: v1.0}\n')();
    check('workdir: {url: git@github.com:o/r.git}\n')();
    assert.throws(() => checkSyncSources({ ...parse('run: x\n', {}).tasks[0], workdir: { url: 'https://u:ghp_x@github.com/o/r.git' } }, dir),
      refusal('usage', /carries a password or token; remove it and set GIT_TOKEN/));
  });
});

describe('cli: a task with a bucket mount validates, and launch refuses it with nothing provisioned', () => {
  const saved = { ...process.env };
  afterEach(() => {
    for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
    Object.assign(process.env, saved);
  });

  it('validate exits 0; launch exits 3 (not available) naming the mount', async () => {
    const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-buckets-ws-'));
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-buckets-task-'));
    Object.assign(process.env, { SKYDECK_WORKSPACE: workspace, HOME: fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-buckets-home-')) });
    const f = path.join(dir, 'bucket.yaml');
    fs.writeFileSync(f, 'resources: {cloud: local}\nfile_mounts:\n  /data: s3://my-bucket\nrun: ls /data\n');
    let out = '';
    let err = '';
    const io = { out: (t: string) => (out += t), outBytes: (d: Buffer) => (out += d.toString()), err: (t: string) => (err += t) };
    assert.equal(await runCli(['validate', f], io), 0, err);
    err = '';
    assert.equal(await runCli(['launch', f, '-c', 'refused', '-y', '-d'], io), 3, err);
    assert.match(err, /file_mounts \/data: s3:\/\/my-bucket \(COPY\) — bucket mounts are parsed but not yet run by this version/);
    const store = await StateStore.openWorkspace(workspace);
    try {
      assert.deepEqual(await store.read((db) => listClusters(db)), []);
    } finally {
      store.close();
      for (const d of [workspace, dir, process.env.HOME as string]) fs.rmSync(d, { recursive: true, force: true });
    }
  });
});
