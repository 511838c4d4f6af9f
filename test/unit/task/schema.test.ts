// The JSON schema: the committed copy is current, it is draft-07 for the editor, fields are
// documented, and a plain draft-07 validator accepts every example (so the editor agrees).

import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import Ajv from 'ajv';
import { parseAllDocuments } from 'yaml';
import { taskSchema } from '../../../src/core/task';
import { taskSchemaJson } from '../../../src/core/task/schema';
import { taskValidatorCode } from '../../../src/core/task/validatorCode';

const root = join(__dirname, '..', '..', '..');
const committedPath = join(root, 'schemas', 'task.schema.json');

type Schema = { [k: string]: unknown };

/** Every property schema under `properties` in the tree, with its dotted location. */
function properties(schema: unknown, at = ''): [string, Schema][] {
  if (!schema || typeof schema !== 'object') return [];
  const out: [string, Schema][] = [];
  const s = schema as Schema;
  for (const [k, v] of Object.entries((s.properties ?? {}) as Record<string, Schema>)) out.push([`${at}.${k}`, v], ...properties(v, `${at}.${k}`));
  for (const key of ['anyOf', 'items', 'additionalProperties', 'definitions']) {
    const child = s[key];
    if (Array.isArray(child)) child.forEach((c, i) => out.push(...properties(c, `${at}.${key}[${i}]`)));
    else if (key === 'definitions' && child) for (const [k, v] of Object.entries(child)) out.push(...properties(v, `${at}.${k}`));
    else if (child && typeof child === 'object') out.push(...properties(child, `${at}.${key}`));
  }
  return out;
}

describe('task schema', () => {
  it('schemas/task.schema.json is up to date (run: npm run schema)', () => {
    assert.equal(readFileSync(committedPath, 'utf8'), taskSchemaJson());
  });

  it('schemas/task.validator.js is up to date (run: npm run schema)', () => {
    assert.equal(readFileSync(join(root, 'schemas', 'task.validator.js'), 'utf8'), taskValidatorCode());
  });

  it('is draft-07 and closed at the top level', () => {
    assert.equal(taskSchema.$schema, 'http://json-schema.org/draft-07/schema#');
    assert.equal(taskSchema.type, 'object');
    assert.equal(taskSchema.additionalProperties, false);
  });

  it('documents every field (hover text in the editor)', () => {
    const props = properties(taskSchema);
    assert.ok(props.length > 100, `only ${props.length} properties found`);
    const undocumented = props.filter(([, s]) => typeof s.description !== 'string' || s.description.length < 3).map(([p]) => p);
    assert.deepEqual(undocumented, []);
  });

  it('accepts every field SkyPilot task YAMLs use', () => {
    const top = Object.keys(taskSchema.properties as object);
    for (const f of ['name', 'workdir', 'num_nodes', 'resources', 'envs', 'secrets', 'file_mounts', 'setup', 'run', 'config',
      'event_callback', 'service', 'pool', 'inputs', 'outputs', 'volumes', 'volume_mounts']) assert.ok(top.includes(f), f);
    const res = Object.keys(((taskSchema.properties as Schema).resources as Schema).properties as object);
    for (const f of ['cloud', 'region', 'zone', 'infra', 'cpus', 'memory', 'accelerators', 'gpus', 'instance_type', 'use_spot',
      'job_recovery', 'spot_recovery', 'disk_size', 'disk_tier', 'network_tier', 'ports', 'image_id', 'labels', 'autostop',
      'any_of', 'ordered', 'accelerator_args', 'priority', 'volumes']) assert.ok(res.includes(f), f);
  });

  it('a plain draft-07 validator with YAML 1.2 (as the editor uses) accepts every example document', () => {
    const ajv = new Ajv({ strict: false, allErrors: true });
    const validate = ajv.compile(JSON.parse(readFileSync(committedPath, 'utf8')));
    const dir = join(root, 'examples');
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.yaml'))) {
      for (const doc of parseAllDocuments(readFileSync(join(dir, file), 'utf8')) as unknown as { toJS(): unknown }[]) {
        const ok = validate(doc.toJS());
        assert.ok(ok, `${file}: ${ajv.errorsText(validate.errors)}`);
      }
    }
  });

  it('the same validator rejects what Skydeck rejects', () => {
    const validate = new Ajv({ strict: false }).compile(taskSchema);
    for (const bad of [{ nmae: 'x' }, { num_nodes: 0 }, { resources: { cloud: 'awz' } }, { resources: { disk_tier: 'fast' } },
      { resources: { any_of: [{ any_of: [] }] } }, { envs: { '1A': 'x' } }, { file_mounts: { '/d': { mode: 'STREAM' } } },
      // A choice that also takes $NAME must still be anchored at both ends.
      { file_mounts: { '/d': { name: 'b', mode: 'MOUNTED' } } }, { file_mounts: { '/d': { name: 'b', store: 's3x' } } },
      { file_mounts: { '/d': { name: 'b', mode: 'x$MODE' } } }]) {
      assert.equal(validate(bad), false, JSON.stringify(bad));
    }
    for (const good of [{ resources: { cloud: 'LOCAL' } }, { envs: { A: 1, B: null } }, { file_mounts: { '/d': { name: 'b', store: '${STORE}' } } }]) {
      assert.equal(validate(good), true, JSON.stringify(good));
    }
  });
});
