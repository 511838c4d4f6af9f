import assert from 'node:assert/strict';
import { checkClouds, checkSsh } from '../../../src/core/clouds/check';

const noPools = () => ({ pools: [], errors: [] });

describe('check clouds', () => {
  it('local is usable on this machine (python3 found), and says which Python', async () => {
    const [local] = await checkClouds({ sshPools: noPools, only: ['local'] });
    assert.equal(local.ok, true, local.detail);
    assert.match(local.detail, /Python 3\.\d+/);
  });

  it('ssh: no pools, broken pools and good pools each say what they are and what to do', () => {
    assert.match(checkSsh(noPools()).fix!, /ssh_pools\.yaml/);
    const broken = checkSsh({ pools: [], errors: ['pool a: "x y" is not a host'] });
    assert.equal(broken.ok, false);
    assert.match(broken.detail, /is not a host/);
    const good = checkSsh({ pools: [{ name: 'a', hosts: [{ address: 'h', port: 22, user: 'u' }, { address: 'g', port: 22, user: 'u' }] }], errors: [] } as never);
    assert.deepEqual([good.ok, good.detail], [true, 'a (2 hosts)']);
  });

  it('runs the clouds in parallel; one failing check does not hide the others', async () => {
    let inFlight = 0;
    let most = 0;
    const slow = (cloud: string, ok: boolean) => async () => {
      most = Math.max(most, ++inFlight);
      await new Promise((r) => setTimeout(r, 50));
      inFlight--;
      return { cloud, ok, detail: cloud };
    };
    const r = await checkClouds({
      sshPools: noPools,
      only: ['aws', 'gcp', 'azure', 'nope'],
      checks: { aws: slow('aws', true), gcp: slow('gcp', false), azure: async () => { throw new Error('boom'); } },
    });
    assert.equal(most, 2, 'aws and gcp were checked at the same time');
    assert.deepEqual(r.map((c) => [c.cloud, c.ok]), [['aws', true], ['gcp', false], ['azure', false], ['nope', false]]);
    assert.match(r[2].detail, /the check itself failed: boom/);
    assert.match(r[3].fix!, /local, ssh, aws, gcp, azure/);
  });
});
