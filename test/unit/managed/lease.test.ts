import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { jobNameOf, ManagedController } from '../../../src/core/managed';
import { clusterNameProblem } from '../../../src/core/state';
import { makeCtx, tempRoot } from './helpers';

describe('managed jobs controller: one per store, names that make valid clusters', () => {
  it('a second controller on the same store waits for the first and gives up at its bound', async () => {
    const root = tempRoot();
    const { ctx } = await makeCtx(root);
    const a = await ManagedController.open(ctx, { pollMs: 1_000 });
    await a.start();
    const b = await ManagedController.open(ctx, { pollMs: 1_000, leaseTimeoutMs: 200 });
    await assert.rejects(b.start(), /lock/i);
    await b.stop();
    await a.stop();
    // Once the first has stopped, the lease is free.
    const c = await ManagedController.open(ctx, { pollMs: 1_000, leaseTimeoutMs: 2_000 });
    await c.start();
    await c.stop();
    ctx.store.close();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('job names become valid cluster-name prefixes', () => {
    for (const [given, want] of [['train', 'train'], ['my job/ü', 'my-job'], ['9lives', 'job-9lives'], [undefined, 'job'], ['--', 'job'], ['x'.repeat(80), 'x'.repeat(40)]] as const) {
      const got = jobNameOf(given);
      assert.equal(got, want);
      assert.equal(clusterNameProblem(`${got}-mj123-4`), undefined);
    }
  });
});
