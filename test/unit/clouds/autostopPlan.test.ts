import assert from 'node:assert/strict';
import { autostopPlan } from '../../../src/core/ops/autostopPlan';

describe('autostop plan per cloud', () => {
  it('an OS shutdown where it is enough (AWS both ways: the shutdown behaviour decides; GCP stop), the API where not', () => {
    const cases: [string, boolean, string][] = [
      ['aws', false, 'shutdown'], ['aws', true, 'shutdown'], ['gcp', false, 'shutdown'],
      ['gcp', true, 'gcp'], ['azure', false, 'azure'], ['azure', true, 'azure'],
    ];
    for (const [cloud, down, action] of cases) {
      assert.deepEqual(autostopPlan(cloud, down), { ok: true, action }, `${cloud} down=${down}`);
    }
  });

  it('says why for machines that are not Skydeck\'s', () => {
    for (const [cloud, down] of [['ssh', false], ['local', true]] as const) {
      const p = autostopPlan(cloud, down);
      assert.ok(!p.ok && /never stopped automatically/.test(p.why), `${cloud}: ${JSON.stringify(p)}`);
    }
  });
});
