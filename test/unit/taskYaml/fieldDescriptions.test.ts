// Hover descriptions: the key path under the cursor, looked up in the task JSON Schema.

import assert from 'node:assert/strict';
import { taskSchema } from '../../../src/core/task';
import { describeFieldAt, describePath } from '../../../src/ui/taskYaml/fieldDescriptions';

/** `text` with the cursor written as `¦`: the text without it, and the cursor's offset. */
function at(marked: string): [string, number] {
  const offset = marked.indexOf('¦');
  assert.ok(offset >= 0, 'no ¦ cursor in the test text');
  return [marked.replace('¦', ''), offset];
}

function describe_(marked: string) {
  return describeFieldAt(...at(marked));
}

type Props = Record<string, { description?: string; properties?: Props }>;
const props = taskSchema.properties as Props;
const resources = props.resources.properties as Props;

describe('task YAML hover: describeFieldAt', () => {
  it('a top-level key: its path, schema description and key range', () => {
    const d = describe_('na¦me: train\nrun: echo hi\n');
    assert.deepEqual(d, { path: 'name', description: props.name.description, start: 0, end: 4 });
  });

  it('the cursor at the first and last character of a key, not just after it', () => {
    assert.equal(describe_('¦run: x\n')?.path, 'run');
    assert.equal(describe_('ru¦n: x\n')?.path, 'run');
    // Just past the key is the ':' — between key and value, no field.
    assert.equal(describe_('run¦: x\n'), undefined);
  });

  it('a value describes its key (cpus: 4, cursor on 4)', () => {
    const d = describe_('resources:\n  cpus: ¦4\n');
    assert.equal(d?.path, 'resources.cpus');
    assert.equal(d?.description, resources.cpus.description);
  });

  it('a multi-line block value describes its key', () => {
    assert.equal(describe_('run: |\n  echo a\n  ec¦ho b\n')?.path, 'run');
  });

  it('nested resources fields', () => {
    assert.equal(describe_('resources:\n  acc¦elerators: A100:8\n')?.description, resources.accelerators.description);
    assert.equal(describe_('resources:\n  infra: aws/us-e¦ast-1\n')?.path, 'resources.infra');
    assert.equal(describe_('res¦ources:\n  cpus: 4\n')?.description, props.resources.description);
  });

  it('resources.any_of[i].cpus walks the list items and the $ref candidate schema', () => {
    const text = 'resources:\n  any_of:\n    - cpus: 4\n    - cp¦us: 8\n      accelerators: A100\n';
    const d = describe_(text);
    assert.equal(d?.path, 'resources.any_of[1].cpus');
    assert.equal(d?.description, resources.cpus.description);
  });

  it('candidate accelerators get the candidate description, not the resources one', () => {
    const d = describe_('resources:\n  ordered:\n    - accel¦erators: A100:8\n');
    assert.equal(d?.path, 'resources.ordered[0].accelerators');
    assert.match(d!.description, /for this candidate/);
  });

  it('flow mappings: {A100: 8} inside accelerators describes accelerators', () => {
    const d = describe_('resources:\n  accelerators: {A1¦00: 8}\n');
    assert.equal(d?.path, 'resources.accelerators');
  });

  it('anyOf branches: workdir {url, ref} and autostop {idle_minutes}', () => {
    assert.match(describe_('workdir:\n  u¦rl: https://x\n')?.description ?? '', /^Repository URL: https:/);
    assert.equal(describe_('resources:\n  autostop:\n    idle_mi¦nutes: 10\n')?.path, 'resources.autostop.idle_minutes');
  });

  it('additionalProperties: file_mounts["/data"].mode', () => {
    const d = describe_('file_mounts:\n  /data:\n    source: s3://b\n    mo¦de: COPY\n');
    assert.equal(d?.path, 'file_mounts["/data"].mode');
    assert.match(d!.description, /MOUNT/);
  });

  it('a key the schema does not describe (an env name) falls back to the field above it', () => {
    const d = describe_('envs:\n  HF_T¦OKEN:\n');
    assert.equal(d?.path, 'envs');
    assert.equal(d?.description, props.envs.description);
  });

  it('a file_mounts destination describes its value: the copy, bucket URL and mapping forms', () => {
    const d = describe_('file_mounts:\n  /da¦ta: s3://b\n');
    assert.equal(d?.path, 'file_mounts["/data"]');
    assert.match(d!.description, /bucket URL whose objects are downloaded here \(COPY\)/);
    assert.match(describe_('file_mounts:\n  /data:\n    na¦me: ckpt\n')?.description ?? '', /creates if it does not exist/);
    assert.match(describe_('file_mounts:\n  /data:\n    sto¦re: gcs\n')?.description ?? '', /aws -> s3, gcp -> gcs/);
  });

  it('config nested overrides', () => {
    assert.equal(describe_('config:\n  docker:\n    run_op¦tions: --x\n')?.path, 'config.docker.run_options');
  });

  it('unknown keys, comments, blank space and broken YAML give nothing and do not throw', () => {
    assert.equal(describe_('bo¦gus: 1\n'), undefined);
    assert.equal(describe_('# a com¦ment\nrun: x\n'), undefined);
    assert.equal(describe_('run: x\n¦\n'), undefined);
    assert.doesNotThrow(() => describe_('resources: [\n  cp¦us: {\n'));
    assert.doesNotThrow(() => describe_('a: &x\n  b: *x\n<<: *¦x\n? [complex]\n: key\n'));
    assert.equal(describeFieldAt('', 0), undefined);
    assert.equal(describeFieldAt('run: x\n', 999), undefined);
  });

  it('a half-typed file still hovers in its well-formed part', () => {
    assert.equal(describe_('resources:\n  cp¦us: 4\n  memory: [\nrun: x\n')?.path, 'resources.cpus');
  });

  it('every document of a multi-document file', () => {
    assert.equal(describe_('name: pipeline\n---\nrun: a\n---\nnum_no¦des: 2\n')?.path, 'num_nodes');
  });
});

describe('task YAML hover: describePath', () => {
  it('walks properties, items, $ref and anyOf', () => {
    assert.equal(describePath(['num_nodes']), props.num_nodes.description);
    assert.equal(describePath(['resources', 'ordered', 0, 'use_spot']), resources.use_spot.description);
    assert.equal(describePath(['resources', 'job_recovery', 'strategy']), 'Recovery strategy, e.g. FAILOVER or EAGER_NEXT_REGION.');
    assert.equal(describePath(['volume_mounts', 0, 'path']), 'Mount path.');
  });

  it('is undefined for a path the schema does not have', () => {
    assert.equal(describePath(['resources', 'nope']), undefined);
    assert.equal(describePath(['run', 'x']), undefined);
    assert.equal(describePath(['resources', 'any_of', 0, 'any_of']), undefined);
  });
});
