// skydeck.defaultCloud: checked before use (a hand-written settings.json can hold anything), and
// used only where nothing else names the cloud (cloudFor's order).
import assert from 'node:assert/strict';
import { parseTaskText } from '../../../src/core/task';
import { cloudFor } from '../../../src/core/ops/launchPlan';
import { checkDefaultCloud } from '../../../src/core/clouds/defaultCloud';
import type { ClusterRecord } from '../../../src/core/state';

const SETTING = 'the setting skydeck.defaultCloud';
const task = (yaml: string) => {
  const p = parseTaskText(yaml, 't.yaml');
  assert.ok(p.ok && p.tasks[0], JSON.stringify(p.diagnostics));
  return p.tasks[0];
};

describe('skydeck.defaultCloud', () => {
  it('unset or empty is no default; a known cloud in any case is taken in lower case', () => {
    assert.equal(checkDefaultCloud(undefined, SETTING), undefined);
    assert.equal(checkDefaultCloud('', SETTING), undefined);
    assert.equal(checkDefaultCloud(null, SETTING), undefined);
    for (const c of ['local', 'ssh', 'aws', 'gcp', 'azure', 'kubernetes']) assert.equal(checkDefaultCloud(c, SETTING), c);
    assert.equal(checkDefaultCloud(' AWS ', SETTING), 'aws');
  });

  it('anything else is an error naming the setting and the choices, with hostile text escaped', () => {
    assert.throws(() => checkDefaultCloud('lambda', SETTING), /^Error: the setting skydeck\.defaultCloud is "lambda", which is not a cloud Skydeck launches on: use one of local, ssh, aws, gcp, azure, kubernetes, or leave it empty$/);
    assert.throws(() => checkDefaultCloud(3, SETTING), /skydeck\.defaultCloud is 3,/);
    assert.throws(() => checkDefaultCloud({ cloud: 'aws' }, SETTING), /skydeck\.defaultCloud is \{"cloud":"aws"\},/);
    assert.throws(() => checkDefaultCloud('aws\u001b[2J\n', SETTING), (e: Error) => !/[\u0000-\u001f]/.test(e.message) && /\\x1b/.test(e.message));
  });

  it('is used only when neither the request, the task, its candidates nor an existing cluster names a cloud', () => {
    const none = task('run: x\n');
    const existing = { provider: 'ssh' } as ClusterRecord;
    assert.equal(cloudFor({}, none, undefined), 'local', 'no default: local, as before');
    assert.equal(cloudFor({ defaultCloud: 'aws' }, none, undefined), 'aws');
    assert.equal(cloudFor({ defaultCloud: 'aws' }, none, existing), 'ssh', 'an existing cluster keeps its cloud');
    assert.equal(cloudFor({ defaultCloud: 'aws' }, task('run: x\nresources: {cloud: gcp}\n'), undefined), 'gcp');
    assert.equal(cloudFor({ defaultCloud: 'aws' }, task('run: x\nresources: {infra: azure/eastus}\n'), undefined), 'azure');
    assert.equal(cloudFor({ defaultCloud: 'aws' }, task('run: x\nresources: {any_of: [{infra: gcp}, {cpus: 2}]}\n'), undefined), 'gcp');
    assert.equal(cloudFor({ defaultCloud: 'aws', cloud: 'local' }, none, undefined), 'local', 'an explicit choice wins');
    assert.equal(cloudFor({ defaultCloud: '' }, none, undefined), 'local');
  });
});
