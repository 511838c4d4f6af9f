import assert from 'node:assert/strict';
import { clusterEndpoints } from '../../../src/core/ops';
import type { ClusterRecord } from '../../../src/core/state';

const row = (resources: string | null, over: Partial<ClusterRecord> = {}) => ({
  name: 'c', status: 'UP', head_address: '10.0.0.5', resources, ...over,
}) as ClusterRecord;

describe('ops: cluster endpoints (status --endpoints)', () => {
  it('a huge range is one line, not 65,535', () => {
    const e = clusterEndpoints(row(JSON.stringify({ ports: [{ from: 22, to: 22 }, { from: 1, to: 65535 }] })));
    assert.deepEqual(e, [{ port: '22', endpoint: '10.0.0.5:22' }, { port: '1-65535', endpoint: '10.0.0.5:1-65535' }]);
  });
  it('damaged or hostile resources give no ports, never a throw or a bogus port', () => {
    for (const r of ['{', 'null', '{"ports": "8080"}', '{"ports": [{"from": 0, "to": 99999}, {"from": "1", "to": 2}, null]}']) {
      assert.deepEqual(clusterEndpoints(row(r)), [], r);
    }
  });
  it('an IPv6 head is bracketed; a cluster not UP has none', () => {
    assert.equal(clusterEndpoints(row('{"ports":[{"from":80,"to":80}]}', { head_address: '::1' }), 80)[0].endpoint, '[::1]:80');
    assert.throws(() => clusterEndpoints(row('{"ports":[]}', { status: 'STOPPED' })), /STOPPED; its endpoints exist only while it is UP/);
  });
});
