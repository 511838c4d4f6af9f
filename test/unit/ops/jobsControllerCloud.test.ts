// A controller cluster's node identity exists only where a provider builds it (aws): a launch
// asking for it on another cloud is refused before anything is provisioned or even looked up.
import assert from 'node:assert/strict';
import { launchOnProvider, CONTROLLER_IDENTITY_CLOUDS } from '../../../src/core/ops/launchProvider';
import { parseTaskText } from '../../../src/core/task';
import type { OpsContext } from '../../../src/core/ops';

describe('a managed-jobs controller cluster on a cloud without its identity', () => {
  it('is refused before the provider is touched, naming the cloud and what works', async () => {
    assert.deepEqual(CONTROLLER_IDENTITY_CLOUDS, ['aws']);
    const touched: string[] = [];
    // Every property read of the context is recorded: the refusal must come first.
    const ctx = new Proxy({}, { get: (_t, k) => { touched.push(String(k)); return undefined; } }) as OpsContext;
    const task = parseTaskText('resources: {cloud: gcp}\nrun: echo\n').tasks[0];
    for (const cloud of ['gcp', 'azure', 'kubernetes']) {
      await assert.rejects(launchOnProvider(ctx, 'skydeck-jobs-00000000', task, { cloud, jobsController: true, autostop: { minutes: 10, down: false } }),
        new RegExp(`^OpsError: a managed-jobs controller cluster on ${cloud} has no scoped identity to launch job clusters with; use aws$`));
    }
    assert.deepEqual(touched, []);
  });
});
