// Issue 12.3 in a real extension host: Launch Task on the fake cloud (standing in for aws),
// cancelled at each launch step the way the notification's Cancel does (a CancellationToken,
// passed as the command's `cancel` option). Every time: the command reports the cancel, no
// instance is left running and no cluster row is left.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { SkydeckApi } from '../../../src/extension';
import type { OpsContext } from '../../../src/core/ops';
import { staticProviders, type Provider } from '../../../src/core/clouds/provider';
import { scaledClock } from '../../../src/core/provision/clock';
import { FakeProvider } from '../../support/fakeCloud/fakeProvider';
import { isLiveStatus } from '../../support/fakeCloud/model';
import { log } from './log';

const TASK = 'name: cancel-cloud\nresources:\n  cloud: aws\nrun: echo "must never run"\n';

/** The provider, cancelling `cts` right after the first call of `method` returns. */
function cancelAfter(p: Provider, method: string, cts: vscode.CancellationTokenSource): Provider {
  return new Proxy(p, {
    get(t, k) {
      const v = Reflect.get(t, k, t);
      if (typeof v !== 'function') return v;
      if (k !== method) return v.bind(t);
      return async (...a: unknown[]) => {
        try {
          return await v.apply(t, a);
        } finally {
          cts.cancel();
        }
      };
    },
  });
}

describe('issue 12.3: cancelling Launch Task on a cloud (extension host, fake cloud)', function () {
  this.timeout(120_000);
  let api: SkydeckApi;
  let ops: OpsContext;
  let saved: Pick<OpsContext, 'providers' | 'clock' | 'timing' | 'bootstrap'>;
  let taskFile: string;

  before(async () => {
    const ext = vscode.extensions.getExtension<SkydeckApi>('skydeck.skydeck');
    assert.ok(ext, 'the extension is loaded');
    api = await ext.activate();
    assert.ok(api.testOps, 'activate() exposes testOps under SKYDECK_TEST=1');
    ops = await api.testOps();
    saved = { providers: ops.providers, clock: ops.clock, timing: ops.timing, bootstrap: ops.bootstrap };
    const root = vscode.workspace.workspaceFolders![0].uri.fsPath;
    taskFile = path.join(root, `cancel-cloud-${process.pid}.sky.yaml`);
    fs.writeFileSync(taskFile, TASK);
  });
  after(() => {
    if (ops) Object.assign(ops, saved);
    if (taskFile) fs.rmSync(taskFile, { force: true });
  });

  for (const step of ['runInstances', 'queryInstances', 'clusterInfo', 'bootstrap']) {
    it(`issue 12.3: cancelled after ${step}: 0 instances left, no cluster row`, async () => {
      const clock = scaledClock(100);
      const cloud = new FakeProvider({ cloud: 'aws', clock });
      const cts = new vscode.CancellationTokenSource();
      const cluster = `cancel-${step.toLowerCase()}-${process.pid}`;
      Object.assign(ops, {
        providers: staticProviders(step === 'bootstrap' ? cloud : cancelAfter(cloud, step, cts)),
        clock,
        timing: { confirmTimeoutMs: 20 * 60_000 },
        // No agent: every case is cancelled before a job could be submitted.
        bootstrap: async () => {
          if (step === 'bootstrap') cts.cancel();
          return { workdir: '/tmp' };
        },
      });
      const result = await vscode.commands.executeCommand('skydeck.launchTask', vscode.Uri.file(taskFile), { cluster, showLogs: false, cancel: cts.token });
      assert.equal(result, undefined, 'the launch was cancelled, no job submitted');
      assert.ok(cts.token.isCancellationRequested, `the ${step} hook ran`);
      const live = cloud.truth().filter((i) => isLiveStatus(i.status));
      log(`      ${step}: ${cloud.truth().length} instance(s) created, ${live.length} live after the cancel`);
      assert.deepEqual(live.map((i) => `${i.id} ${i.status}`), [], '0 instances left running');
      await api.clustersModel.reload();
      assert.equal(api.clustersModel.cluster(cluster), undefined, 'no cluster row left');
    });
  }
});
