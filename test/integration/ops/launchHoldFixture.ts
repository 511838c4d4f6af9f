// A cloud launch whose "instances" are this machine (the fake cloud as aws, the head's agent
// running locally), with a pause right after the bootstrap configured the agent's autostop:
// the time a large workdir upload or slow setup planning keeps a launch from its submit.
// Shared by launchHold.test.ts and the child it kills (launchHoldChild.ts).
import type { Bootstrap } from '../../../src/core/provision';
import { scaledClock } from '../../../src/core/provision';
import type { ClusterRecord } from '../../../src/core/state';
import { staticProviders } from '../../../src/core/clouds/provider';
import { localAgentBootstrap } from '../../../src/core/ops';
import { FakeProvider } from '../../support/fakeCloud/fakeProvider';
import { fileStorage } from '../../support/fakeCloud/storage';
import { emptyState } from '../../support/fakeCloud/model';
import { testOps, type TestOps } from './helpers';

/** `b`, then `after` before the launch goes on; a launch's hold (withHold) is kept. */
function pausedAfter(b: Bootstrap, after: (row: ClusterRecord) => Promise<void>): Bootstrap {
  const boot: Bootstrap = async (row, info, signal) => {
    const handle = await b(row, info, signal);
    await after(row);
    return handle;
  };
  if (b.withHold) boot.withHold = (s) => pausedAfter(b.withHold!(s), after);
  return boot;
}

export async function holdOps(root: string, cloudFile: string, after: (row: ClusterRecord) => Promise<void>): Promise<TestOps & { cloud: FakeProvider }> {
  const ops = await testOps({ root });
  const clock = scaledClock(100);
  const cloud = new FakeProvider({ cloud: 'aws', clock, storage: fileStorage(cloudFile, emptyState()) });
  const ctx = Object.assign(ops, { providers: staticProviders(cloud), clock, timing: { confirmTimeoutMs: 60_000 }, cloud });
  ctx.bootstrap = pausedAfter(localAgentBootstrap(ctx), after);
  return ctx;
}
