import assert from 'node:assert/strict';
import { namesCloud, parseTaskText } from '../../../src/core/task';

const resources = (yaml: string) => {
  const r = parseTaskText(`${yaml}\nrun: echo hi\n`);
  assert.ok(r.ok, JSON.stringify(r.diagnostics));
  return r.tasks[0].resources;
};

describe('task: does it say where to run?', () => {
  it('yes with cloud, infra, or a cloud in any any_of / ordered candidate', () => {
    for (const y of ['resources: {cloud: aws}', 'resources: {infra: gcp/us-central1}', 'resources:\n  any_of:\n    - {cpus: 2}\n    - {cloud: azure}',
      'resources:\n  ordered:\n    - {infra: ssh/lab}']) {
      assert.equal(namesCloud(resources(y)), true, y);
    }
  });

  it('no when only the shape is given (the editor then asks)', () => {
    assert.equal(namesCloud(resources('resources: {cpus: 4+, accelerators: "L4:1"}')), false);
    assert.equal(namesCloud(resources('name: plain')), false);
  });
});
