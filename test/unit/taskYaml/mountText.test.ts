// The CodeLens and hover wording for file_mounts entries and git workdirs, from typed mounts
// (mountText.ts) and from real task YAML through the parser (mountEntries.ts).
import assert from 'node:assert/strict';
import type { FileMount } from '../../../src/core/task';
import { code, fileMountHoverText, fileMountLensText, gitWorkdirHoverText, gitWorkdirLensText } from '../../../src/ui/taskYaml/mountText';
import { mountEntries, mountEntryAt } from '../../../src/ui/taskYaml/mountEntries';

const named = (over: Partial<Extract<FileMount, { kind: 'bucket' }>['mount']> = {}): FileMount => ({
  kind: 'bucket', mount: { kind: 'named', store: 's3', name: 'ckpt-bkt', mode: 'MOUNT', persistent: false, ...over } as never,
});

describe('task YAML mount lenses: text', () => {
  it('a bucket Skydeck creates: store, name, mode, creation and its fate at down', () => {
    assert.equal(fileMountLensText(named()), 's3 bucket ckpt-bkt · MOUNT · created by Skydeck if missing · deleted at down (persistent: false)');
    assert.equal(fileMountLensText(named({ persistent: true, store: 'gcs', mode: 'MOUNT_CACHED' })),
      'gcs bucket ckpt-bkt · MOUNT_CACHED · created by Skydeck if missing · kept after down');
    assert.equal(fileMountLensText(named({ persistent: true, localSource: './data', mode: 'COPY' })),
      's3 bucket ckpt-bkt · COPY · created by Skydeck if missing · uploads ./data (changed files only on later launches) · kept after down');
    assert.match(fileMountLensText(named({ store: 'azure', localFiles: ['a.txt', 'b'] })), /^azure container ckpt-bkt · .* uploads a\.txt, b /);
  });

  it('an existing bucket by URL: never created or deleted', () => {
    const m: FileMount = { kind: 'bucket', mount: { kind: 'url', url: 's3://bkt/p', store: 's3', bucket: 'bkt', prefix: 'p', mode: 'COPY' } };
    assert.equal(fileMountLensText(m), 's3://bkt/p · existing s3 bucket · COPY · never created or deleted by Skydeck');
  });

  it('local copies, launch-time buckets and stores Skydeck lacks', () => {
    assert.equal(fileMountLensText({ kind: 'copy', source: './data' }), 'local ./data → copied to every node');
    assert.match(fileMountLensText({ kind: 'deferred' }), /checked at launch/);
    assert.match(fileMountLensText({ kind: 'unsupported', store: 'cos://' }), /^cos:\/\/ storage · not supported by Skydeck/);
  });

  it('a git workdir: repository, ref (or the default branch), where it lands', () => {
    assert.equal(gitWorkdirLensText({ url: 'https://github.com/o/r', ref: 'v1.0' }), 'git repo https://github.com/o/r at v1.0 → cloned to ~/sky_workdir on every node');
    assert.match(gitWorkdirLensText({ url: 'git@host:o/r' }), / at its default branch → /);
    assert.match(gitWorkdirHoverText({ url: 'git@host:o/r', ref: 'main' }), /`git@host:o\/r` is cloned .* at `main`; .*GIT_TOKEN/);
  });

  it('hover: the mode, the source, the destination and what the job sees', () => {
    const url: FileMount = { kind: 'bucket', mount: { kind: 'url', url: 's3://bkt/p', store: 's3', bucket: 'bkt', prefix: 'p', mode: 'MOUNT' } };
    assert.equal(fileMountHoverText('/data', url),
      '**MOUNT** of `s3://bkt/p` at `/data` — reads streamed, writes go to the bucket. An existing bucket: Skydeck never creates or deletes it.');
    assert.match(fileMountHoverText('/c', named({ mode: 'MOUNT_CACHED' })), /^\*\*MOUNT_CACHED\*\* of `s3 bucket ckpt-bkt` at `\/c` — mounted with a local write cache; writes are uploaded before the job counts as finished\. .*deleted, with proof/);
    assert.match(fileMountHoverText('/c', named({ mode: 'COPY', localSource: 'd' })), /downloaded before setup/);
    assert.equal(fileMountHoverText('/x', { kind: 'copy', source: 'a`b' }), 'The local path ``a`b`` is copied to every node at `/x` before setup.');
  });

  it('code spans hold backticks at either end', () => {
    assert.equal(code('`x`'), '`` `x` ``');
    assert.equal(code('plain'), '`plain`');
  });
});

const TASK = `resources:
  cloud: aws
workdir:
  url: https://github.com/o/r
  ref: v1.0
envs:
  DST: /out
file_mounts:
  /data: s3://bkt/p
  $DST:
    name: my-ckpt-bkt
    mode: MOUNT_CACHED
    persistent: false
  /m: {source: gs://gbkt/x, mode: MOUNT}
  /local: ./data
  /bad: {mode: MOUNTT, source: s3://bkt}
run: echo
`;

describe('task YAML mount lenses: positions from a real task', () => {
  it('one entry per parsed mount and the git workdir, on the key line; rejected entries get none', () => {
    const es = mountEntries(TASK);
    assert.deepEqual(es.map((e) => [e.line, e.col]), [[2, 0], [8, 2], [9, 2], [13, 2], [14, 2]]);
    assert.match(es[0].lens, /^git repo https:\/\/github\.com\/o\/r at v1\.0/);
    assert.match(es[1].lens, /^s3:\/\/bkt\/p · existing s3 bucket · COPY/);
    // The env-named destination is matched after filling in $DST.
    assert.equal(es[2].lens, 's3 bucket my-ckpt-bkt · MOUNT_CACHED · created by Skydeck if missing · deleted at down (persistent: false)');
    assert.match(es[2].hover, / at `\/out` /);
    assert.match(es[3].lens, /^gs:\/\/gbkt\/x · existing gcs bucket · MOUNT/);
    assert.equal(es[4].lens, 'local ./data → copied to every node');
  });

  it('mountEntryAt: the key and the whole value belong to the entry', () => {
    assert.equal(mountEntryAt(TASK, TASK.indexOf('persistent'))?.line, 9);
    assert.equal(mountEntryAt(TASK, TASK.indexOf('gbkt'))?.line, 13);
    assert.equal(mountEntryAt(TASK, TASK.indexOf('run:')), undefined);
  });

  it('text that is not a task, or not YAML, gives no entries and no throw', () => {
    assert.deepEqual(mountEntries(''), []);
    assert.deepEqual(mountEntries('file_mounts: [\n'), []);
    assert.deepEqual(mountEntries('- a\n- b\n'), []);
  });
});
