// A controller cluster's node identity exists only where a provider builds it
// (Provider.controllerIdentity): a launch asking for it on another cloud is refused before the
// provider is called or the state store is read.
import assert from 'node:assert/strict';
import { launchOnProvider } from '../../../src/core/ops/launchProvider';
import { staticProviders, type Provider } from '../../../src/core/clouds/provider';
import { parseTaskText } from '../../../src/core/task';
import type { OpsContext } from '../../../src/core/ops';

describe('a managed-jobs controller cluster on a cloud without its identity', () => {
  it('is refused before the provider or the store is touched, naming the cloud and what works', async () => {
    const touched: string[] = [];
    // Every property read is recorded: only the capability flag may be read before the refusal.
    const spy = <T extends object>(what: string, known: Record<string, unknown>): T =>
      new Proxy(known, { get: (t, k) => { touched.push(`${what}.${String(k)}`); return t[String(k)]; } }) as T;
    const task = parseTaskText('resources: {cloud: kubernetes}\nrun: echo\n').tasks[0];
    for (const cloud of ['kubernetes', 'lambda']) {
      touched.length = 0;
      const provider = spy<Provider>('provider', { cloud });
      const ctx = spy<OpsContext>('ctx', { providers: staticProviders(provider), store: spy('store', {}), progress: () => undefined, log: () => undefined });
      await assert.rejects(launchOnProvider(ctx, 'skydeck-jobs-00000000', task, { cloud, jobsController: true, autostop: { minutes: 10, down: false } }),
        new RegExp(`^OpsError: a managed-jobs controller cluster on ${cloud} has no scoped identity to launch job clusters with; put the controller on aws, gcp or azure, an ssh pool or this machine$`));
      assert.ok(touched.includes('provider.controllerIdentity'), touched.join(' '));
      const calls = touched.filter((t) => t.startsWith('provider.') && !['provider.cloud', 'provider.controllerIdentity'].includes(t));
      assert.deepEqual(calls, [], 'no provider method before the refusal');
      assert.ok(!touched.some((t) => t.startsWith('store.') || t === 'ctx.bootstrap'), touched.join(' '));
    }
  });
});
