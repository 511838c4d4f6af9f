import assert from 'node:assert/strict';
import { autostopPlan } from '../../../src/core/ops/autostopPlan';

describe('autostop plan per cloud', () => {
  it('AWS stops or terminates by an OS shutdown (the shutdown behaviour decides); GCP stops the same way', () => {
    for (const [cloud, down] of [['aws', false], ['aws', true], ['gcp', false]] as const) {
      const p = autostopPlan(cloud, down);
      assert.ok(p.ok && p.command.join(' ').includes('shutdown -h now'), `${cloud} down=${down}`);
    }
  });

  it('says why where an OS shutdown is not enough or the machines are not Skydeck\'s', () => {
    const cases: [string, boolean, RegExp][] = [
      ['gcp', true, /Compute API/], ['azure', false, /deallocated/], ['ssh', false, /never stopped automatically/], ['local', true, /never stopped/],
    ];
    for (const [cloud, down, why] of cases) {
      const p = autostopPlan(cloud, down);
      assert.ok(!p.ok && why.test(p.why), `${cloud}: ${JSON.stringify(p)}`);
    }
  });
});
