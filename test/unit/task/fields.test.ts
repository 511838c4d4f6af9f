// Every accepted top-level field form, and YAML document handling, parses to the expected value.

import assert from 'node:assert/strict';
import { parse, task, warnings } from './helpers';

describe('task YAML: top-level fields', () => {
  it('defaults: one node, no accelerators, empty maps', () => {
    const t = task('run: echo hi\n');
    assert.equal(t.run, 'echo hi');
    assert.equal(t.numNodes, 1);
    assert.equal(t.name, undefined);
    assert.equal(t.setup, undefined);
    assert.deepEqual(t.envs, {});
    assert.deepEqual(t.secrets, {});
    assert.deepEqual(t.fileMounts, {});
    assert.deepEqual(t.resources, { accelerators: [], acceleratorsOrdered: false, useSpot: false, ports: [], labels: {} });
    assert.deepEqual(t.raw, { run: 'echo hi' });
    assert.equal(t.docIndex, 0);
  });

  it('name, setup, run (block scalars keep newlines), num_nodes', () => {
    const t = task('name: train\nnum_nodes: 4\nsetup: |\n  pip install x\n  echo ok\nrun: >-\n  python\n  train.py\n');
    assert.equal(t.name, 'train');
    assert.equal(t.numNodes, 4);
    assert.equal(t.setup, 'pip install x\necho ok\n');
    assert.equal(t.run, 'python train.py');
  });

  it('workdir as a path, as {url}, and as {url, ref}', () => {
    assert.equal(task('workdir: ~/src/proj\n').workdir, '~/src/proj');
    assert.equal(task('workdir: .\n').workdir, '.');
    assert.deepEqual(task('workdir:\n  url: https://github.com/o/r.git\n').workdir, { url: 'https://github.com/o/r.git' });
    assert.deepEqual(task('workdir: {url: git@github.com:o/r.git, ref: v1.0}\n').workdir, { url: 'git@github.com:o/r.git', ref: 'v1.0' });
  });

  it('envs: strings, numbers and booleans become strings (as SkyPilot does), null stays null', () => {
    const t = task('envs:\n  A: x\n  N: 3\n  F: 0.5\n  B: true\n  EMPTY: ""\n  LATER:\n');
    assert.deepEqual(t.envs, { A: 'x', N: '3', F: '0.5', B: 'True', EMPTY: '', LATER: null });
    assert.deepEqual((t.raw as { envs: unknown }).envs, { A: 'x', N: 3, F: 0.5, B: true, EMPTY: '', LATER: null });
  });

  it('null envs are filled from launch-time values, which may add new names', () => {
    const r = parse('envs:\n  HF_TOKEN:\n  MODEL: small\n', { HF_TOKEN: 'hf_1', EXTRA: 'e' });
    assert.deepEqual(r.diagnostics, []);
    assert.deepEqual(r.tasks[0].envs, { HF_TOKEN: 'hf_1', MODEL: 'small', EXTRA: 'e' });
  });

  it('secrets as a mapping and as a list of secrets: references', () => {
    assert.deepEqual(task('secrets:\n  WANDB_API_KEY: abc\n  HF_TOKEN:\n  N: 5\n').secrets, { WANDB_API_KEY: 'abc', HF_TOKEN: null, N: '5' });
    assert.deepEqual(task('secrets: [secrets:HF_TOKEN, secrets:team/KEY]\n').secrets, { 'secrets:HF_TOKEN': null, 'secrets:team/KEY': null });
  });

  it('file_mounts: copies, bucket URLs and storage mappings with defaults', () => {
    const t = task([
      'resources: {cloud: aws}',
      'file_mounts:',
      '  ~/.netrc: ~/.netrc',
      '  /datasets: s3://bucket/path',
      '  /out:',
      '    name: out-bucket',
      '    source: ./out',
      '    store: s3',
      '    mode: copy',
      '    persistent: false',
      '  /many:',
      '    name: many-files',
      '    source: [a.txt, b.txt]',
      '  /cached:',
      '    name: ckpt',
      '    mode: MOUNT_CACHED',
      '    config: {mount_cached: {transfers: 8}}',
      '',
    ].join('\n'));
    assert.deepEqual(t.fileMounts, {
      '~/.netrc': { kind: 'copy', source: '~/.netrc' },
      '/datasets': { kind: 'bucket', mount: { kind: 'url', url: 's3://bucket/path', store: 's3', bucket: 'bucket', prefix: 'path', mode: 'COPY' } },
      '/out': { kind: 'bucket', mount: { kind: 'named', store: 's3', name: 'out-bucket', mode: 'COPY', persistent: false, localSource: './out' } },
      '/many': { kind: 'bucket', mount: { kind: 'named', store: 's3', name: 'many-files', mode: 'MOUNT', persistent: true, localFiles: ['a.txt', 'b.txt'] } },
      '/cached': { kind: 'bucket', mount: { kind: 'named', store: 's3', name: 'ckpt', mode: 'MOUNT_CACHED', persistent: true, tuning: { transfers: 8 } }, config: { mount_cached: { transfers: 8 } } },
    });
  });

  it('fills $NAME and ${NAME} from envs in file_mounts and workdir (keys too), as SkyPilot does', () => {
    const t = task([
      'envs: {SIZE: "7", BUCKET: data, STORE: gcs}',
      'workdir: ~/models/${SIZE}b',
      'file_mounts:',
      '  /weights/llama-${SIZE}b: s3://weights/$SIZE/llama',
      '  /data: {name: $BUCKET, store: $STORE}',
      '',
    ].join('\n'));
    assert.equal(t.workdir, '~/models/7b');
    assert.deepEqual(t.fileMounts['/weights/llama-7b'], {
      kind: 'bucket', mount: { kind: 'url', url: 's3://weights/7/llama', store: 's3', bucket: 'weights', prefix: '7/llama', mode: 'COPY' },
    });
    assert.deepEqual(t.fileMounts['/data'], { kind: 'bucket', mount: { kind: 'named', store: 'gcs', name: 'data', mode: 'MOUNT', persistent: true } });
  });

  it('a storage choice taken from an env given only at launch is not reported early', () => {
    const r = parse('envs: {STORE: null}\nfile_mounts:\n  /data: {name: bkt, store: $STORE}\n');
    assert.deepEqual(r.diagnostics, []);
    assert.deepEqual(r.tasks[0].fileMounts['/data'], { kind: 'deferred' });
    const launched = parse('envs: {STORE: null}\nfile_mounts:\n  /data: {name: bkt, store: $STORE}\n', { STORE: 'r2' });
    assert.deepEqual(launched.tasks[0].fileMounts['/data'], { kind: 'bucket', mount: { kind: 'named', store: 'r2', name: 'bkt', mode: 'MOUNT', persistent: true } });
  });

  it('config overrides', () => {
    const t = task('config:\n  docker:\n    run_options: [--shm-size=8g]\n  kubernetes:\n    provision_timeout: 600\n  active_workspace: team\n');
    assert.deepEqual(t.config, { docker: { run_options: ['--shm-size=8g'] }, kubernetes: { provision_timeout: 600 }, active_workspace: 'team' });
  });

  it('fields SkyPilot accepts but Skydeck does not act on parse with a warning at the key', () => {
    const text = [
      'run: echo',
      'event_callback: echo done',
      'service: {readiness_probe: /health, replicas: 2}',
      'pool: {workers: 2}',
      'inputs: {s3://in: 10}',
      'outputs: {s3://out: 1}',
      'volumes: {/mnt/vol: my-volume}',
      'volume_mounts: [{path: /mnt/x, volume_name: v}]',
      'managed_secrets: [HF_TOKEN]',
      'api_server_access: false',
      '',
    ].join('\n');
    const r = parse(text);
    assert.equal(r.ok, true);
    assert.deepEqual(warnings(r), [
      '2:1 event_callback is not used by Skydeck yet and will be ignored',
      '3:1 service is not used by Skydeck yet and will be ignored',
      '4:1 pool is not used by Skydeck yet and will be ignored',
      '5:1 inputs is not used by Skydeck yet and will be ignored',
      '6:1 outputs is not used by Skydeck yet and will be ignored',
      '7:1 volumes is not used by Skydeck yet and will be ignored',
      '8:1 volume_mounts is not used by Skydeck yet and will be ignored',
      '9:1 managed_secrets is not used by Skydeck yet and will be ignored',
      '10:1 api_server_access is not used by Skydeck yet and will be ignored',
    ]);
    assert.equal(r.tasks[0].run, 'echo');
  });
});

describe('task YAML: documents and YAML dialect', () => {
  it('a pipeline yields one task per document and a warning at document 2', () => {
    const r = parse('name: pipe\n---\nname: a\nrun: echo a\n---\nname: b\nrun: echo b\n');
    assert.equal(r.ok, true);
    assert.deepEqual(r.tasks.map((t) => [t.docIndex, t.name, t.run]), [[0, 'pipe', undefined], [1, 'a', 'echo a'], [2, 'b', 'echo b']]);
    assert.deepEqual(r.diagnostics.map((d) => [d.severity, d.line, d.col, d.message]), [
      ['warning', 2, 1, 'this file has 3 YAML documents (a pipeline); launch does not support pipelines yet'],
    ]);
  });

  it('a pipeline header may say execution: serial', () => {
    const r = parse('name: pipe\nexecution: serial\n---\nrun: echo\n---\nrun: echo 2\n');
    assert.equal(r.ok, true);
    assert.equal(r.tasks[0].name, 'pipe');
  });

  it('empty documents (a trailing ---) are skipped, not a pipeline', () => {
    const r = parse('run: echo\n---\n');
    assert.deepEqual(r.diagnostics, []);
    assert.equal(r.tasks.length, 1);
  });

  it('reads YAML like PyYAML: yes/on are booleans, y/n and "." are strings, 1:30 is sexagesimal', () => {
    const t = task('resources:\n  use_spot: yes\nenvs:\n  A: y\n  B: on\n  C: 1:30\nworkdir: .\n');
    assert.equal(t.resources.useSpot, true);
    assert.deepEqual(t.envs, { A: 'y', B: 'True', C: '90' });
    assert.equal(t.workdir, '.');
  });

  it('reads exponents like PyYAML: e0 and 1e3 are strings, 1.0e+3 is a float', () => {
    assert.equal(task('name: e0\nrun: echo\n').name, 'e0');
    const t = task('envs:\n  A: 1e3\n  B: E5\n  C: 1.5e+2\nrun: echo\n');
    assert.deepEqual(t.envs, { A: '1e3', B: 'E5', C: '150' });
  });

  it('dates stay text; anchors and merge keys expand', () => {
    assert.equal(task('name: 2024-01-02\nrun: echo\n').name, '2024-01-02');
    const merged = task('envs: &e\n  A: "1"\nsecrets:\n  <<: *e\n  B: "2"\n');
    assert.deepEqual(merged.secrets, { A: '1', B: '2' });
  });

  it('a duplicate key is a warning and the later value wins, as in PyYAML', () => {
    const r = parse('name: a\nname: b\n');
    assert.equal(r.ok, true);
    assert.equal(r.tasks[0].name, 'b');
    assert.deepEqual(r.diagnostics.map((d) => [d.severity, d.line, d.col, d.message]), [['warning', 2, 1, 'duplicate key "name"']]);
  });

  it('an error in a value reached through a merge key (<<) points at the anchored text', () => {
    const text = 'resources:\n  any_of:\n    - &gpu\n      accelerators: A100:x\n    - <<: *gpu\n      cloud: aws\n';
    const r = parse(text);
    assert.deepEqual(r.diagnostics.map((d) => [d.line, d.col, d.path]), [
      [4, 21, 'resources.any_of[0].accelerators'],
      [4, 21, 'resources.any_of[1].accelerators'],
    ]);
  });

  it('a UTF-8 byte-order mark is ignored', () => {
    assert.equal(task('\uFEFFrun: echo\n').run, 'echo');
  });
});
