// What Down adds to confirm termination with the fake's default delays (1 s API lag,
// 3 s shutdown) and the default timing (1 s polls): the figure test:leaks prints.
import assert from 'node:assert/strict';
import { downWithProof } from '../../../src/core/provision';
import { harness } from '../../support/fakeCloud/harness';
import { launch, row } from './helpers';
import { recordStat } from './leakStats';

describe('provision: the time Down adds to confirm termination', () => {
  it('is a few seconds of cloud time with the default delays', async () => {
    // A low scale: real time spent in state writes would otherwise count as cloud seconds.
    const h = await harness({ scale: 20 });
    try {
      const times: number[] = [];
      for (let i = 0; i < 5; i++) {
        assert.ok((await launch(h, `c${i}`)).ok);
        const r = await downWithProof(h.env, (await row(h, `c${i}`))!);
        assert.ok(r.deleted);
        times.push(r.confirmMs);
      }
      times.sort((a, b) => a - b);
      const median = times[2];
      recordStat({ kind: 'downConfirm', medianMs: median, samples: times });
      assert.ok(median >= 1_000 && median < 10_000, `median ${median} ms`);
    } finally {
      h.dispose();
    }
  });
});
