// `jobs launch` racing a controller that is shutting down (idle exit): the job is written
// before the launch looks for a controller, and the controller looks again after releasing
// its lease, so whichever side wins the job is served. Rounds submit at instants spread around
// the controller's idle deadline.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { cleanupBase } from '../agent/helpers';
import { LocalManagedClient, ManagedController, ManagedStore, type ManagedJob } from '../../../src/core/managed';
import { liveLocalHolder } from '../../../src/core/state/fileLock';
import { emptyState } from '../../support/fakeCloud/model';
import { fileStorage } from '../../support/fakeCloud/storage';
import { leaks } from '../../support/fakeCloud/harness';
import { scaledClock } from '../../../src/core/provision';
import { ended, makeCtx, SCALE, tempRoot } from './helpers';

const IDLE_S = 0.4;

describe('managed jobs: jobs launch racing a controller that is exiting idle', function () {
  this.timeout(600_000);
  let root: string;
  const children: ChildProcess[] = [];
  after(async () => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    await cleanupBase(root);
  });

  it('every job submitted around the idle exit is served to SUCCEEDED; 0 leaks', async () => {
    root = tempRoot();
    const cloudFile = path.join(root, 'cloud.json');
    fileStorage(cloudFile, emptyState());
    const epoch = Date.now();
    const storeFile = ManagedStore.fileIn(root);
    let spawned = 0;
    // What ensureLocalController does, with the test's controller program.
    const startController = () => {
      const held = liveLocalHolder(ManagedController.leaseFileOf(storeFile));
      if (held !== undefined) return { where: 'test', started: false, detail: `pid ${held}` };
      const c = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, 'idleChild.ts'), root, cloudFile, String(epoch), String(IDLE_S)], { stdio: ['ignore', 'ignore', fs.openSync(path.join(root, 'controllers.log'), 'a')] });
      children.push(c);
      spawned++;
      return { where: 'test', started: true, detail: `pid ${c.pid}` };
    };
    const client = await LocalManagedClient.open(storeFile, startController);
    const exited = () => new Promise<void>((r) => {
      const c = children.at(-1)!;
      if (c.exitCode !== null) r();
      else c.on('exit', () => r());
    });
    try {
      const first = await client.submit({ tasks: ['resources:\n  infra: aws/r1\nrun: echo 0\n'], name: 'r' });
      await waitEnded(client, first.id, path.join(root, 'controllers.log'));
      // Each round: the job before has ended; the controller is counting down its idle time.
      // Submit at an instant from well before to just after its deadline.
      for (let round = 1; round <= 6; round++) {
        const delay = (IDLE_S * 1000 * round) / 4 - 100;
        await new Promise((r) => setTimeout(r, delay));
        const { id } = await client.submit({ tasks: [`resources:\n  infra: aws/r1\nrun: echo ${round}\n`], name: 'r' });
        const j = await waitEnded(client, id, path.join(root, 'controllers.log'));
        assert.equal(j.status, 'SUCCEEDED', `round ${round} (${delay} ms after the last job ended): ${j.lastError}`);
      }
      // The last controller exits on its own once idle; nothing is left behind.
      await exited();
      assert.ok(spawned >= 1);
      const { ctx, cloud } = await makeCtx(root, { clock: scaledClock(SCALE, epoch), storage: fileStorage(cloudFile) });
      try {
        assert.deepEqual(await leaks({ store: ctx.store, cloud }), []);
      } finally {
        await ctx.connections.closeAll();
        ctx.store.close();
      }
    } finally {
      await client.close();
    }
  });
});

async function waitEnded(client: LocalManagedClient, id: number, logFile: string): Promise<ManagedJob> {
  const end = Date.now() + 400_000;
  for (;;) {
    const j = await client.job(id);
    if (j && ended(j)) return j;
    if (Date.now() > end) throw new Error(`job ${id} was not served: ${j?.status}; controllers' log: ${fs.readFileSync(logFile, 'utf8').slice(-2000)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
