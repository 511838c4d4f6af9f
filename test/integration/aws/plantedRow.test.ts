// Issue 13.2: a state row that came with a repository must never terminate anyone's instances.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { staticProviders } from '../../../src/core/clouds/provider';
import { StateStore } from '../../../src/core/state';
import { Connections, reconcile, status, type OpsContext } from '../../../src/core/ops';
import { skipWithoutMoto } from '../../support/moto';
import { plantRow } from '../../support/plantRow';
import { REGION, runRequest, startBed, type AwsBed } from './helpers';

describe('aws: planted state rows (issue 13.2)', function () {
  this.timeout(90_000);
  let bed: AwsBed;
  let victim: { uid: string; ids: string[] };
  let ctx: OpsContext;
  let logs: string[];
  // Straight to moto: no faults are injected here.
  const direct = () => bed.provider({ endpoint: bed.moto.url, maxAttempts: 3 });

  before(async function () {
    skipWithoutMoto(this);
    bed = await startBed();
    // Another cluster's instance (another workspace, another person): it must survive.
    const req = runRequest({ clusterName: 'theirs' });
    victim = { uid: req.uid, ids: (await direct().runInstances(req)).created };
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-planted-aws-'));
    logs = [];
    ctx = {
      store: await StateStore.openWorkspace(root), workspaceRoot: root, sshPools: () => ({ pools: [], errors: [] }),
      connections: new Connections({ knownHostsFile: path.join(root, 'known_hosts'), workspaceRoot: root }),
      progress: () => undefined, log: (m) => logs.push(m), warn: () => undefined, user: 'tester',
      providers: staticProviders(direct()), timing: { confirmTimeoutMs: 5_000 },
    };
  });
  after(async () => {
    ctx?.store.close();
    await bed?.close();
  });

  const victimAlive = async () => {
    const q = await direct().queryInstances({ uid: victim.uid, region: REGION });
    return q.filter((i) => i.status === 'running' || i.status === 'pending').map((i) => i.id).sort();
  };

  it('issue 13.2: a row with uid "*" flagged terminating terminates nothing on start-up reconcile or refresh', async () => {
    await plantRow(ctx.store, {
      name: 'wild', uid: '*', provider: 'aws', region: REGION, status: 'UP', flags: 'terminating', head_address: null,
      handle: JSON.stringify({ hosts: [], workdir: '', instanceIds: [], lastRunAt: 0, runInFlight: false, attempt: 1 }),
    });
    const out = await reconcile(ctx);
    assert.deepEqual(out, [], 'the refused row is not reconciled at all');
    const rows = await status(ctx, { refresh: true });
    assert.deepEqual(rows.map((r) => r.cluster.name), []);
    assert.deepEqual(await victimAlive(), [...victim.ids].sort());
  });

  it('issue 13.2: a well-formed row naming another cluster\'s real uid, not written by this machine, is shown but never torn down', async () => {
    await plantRow(ctx.store, {
      name: 'lookalike', uid: victim.uid, provider: 'aws', region: REGION, status: 'INIT', flags: 'terminating', head_address: null,
      created_by_user: 'mallory', created_by_machine: '0123456789abcdef0123456789abcdef',
      handle: JSON.stringify({ hosts: [], workdir: '', instanceIds: victim.ids, lastRunAt: 0, runInFlight: false, attempt: 1 }),
    });
    const out = await reconcile(ctx);
    assert.equal(out.length, 1);
    assert.equal(out[0].action, 'unchanged');
    assert.match(out[0].message ?? '', /not reconciled: it was launched from another machine \(by "mallory"\)/);
    const rows = await status(ctx, { refresh: true });
    const shown = rows.find((r) => r.cluster.name === 'lookalike');
    assert.ok(shown, 'the row is still listed');
    assert.match(shown.notOurs ?? '', /does not check or act on it by itself/);
    assert.deepEqual(await victimAlive(), [...victim.ids].sort());
  });

  it('issue 13.2: the provider itself matches "*" literally and confirms the exact tag before stop or terminate', async () => {
    const p = direct();
    assert.deepEqual(await p.queryInstances({ uid: '*', region: REGION }), []);
    assert.deepEqual(await p.queryInstances({ uid: '?'.repeat(victim.uid.length), region: REGION }), []);
    await p.stopInstances({ uid: '*', region: REGION });
    await p.terminateInstances({ uid: '*', region: REGION });
    await p.terminateInstances({ uid: `${victim.uid.slice(0, -1)}?`, region: REGION });
    assert.deepEqual(await victimAlive(), [...victim.ids].sort());
  });
});
