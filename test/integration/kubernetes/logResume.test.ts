// A log follow over the Kubernetes exec stream survives the stream being cut: a TCP relay in
// front of the kit's API server resets every connection mid-stream, and the follower resumes
// at the next unseen byte (no gap, no duplicate), as over SSH (ops/sshRobustness.test.ts).
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createKubeTransport } from '../../../src/core/clouds/kubernetes';
import { down, exec, launch, logs } from '../../../src/core/ops';
import { readHandle } from '../../../src/core/ops/clusterHandle';
import { getCluster } from '../../../src/core/state';
import { writeTask, type TestOps } from '../ops/helpers';
import { kubeOps, SHORT_LAUNCH_GRACE } from './kubeOps';
import { kitProviderEnv, releaseKit, useKit, type Kit } from '../../support/k8sKit';
import { tcpCutter, type TcpCutter } from '../../support/tcpCutter';

describe('kubernetes: a log follow survives the exec stream being cut (the kit)', function () {
  this.timeout(10 * 60_000);
  let kit: Kit;
  let ops: TestOps;
  let cutter: TcpCutter;
  let dir: string;
  const saved: Record<string, string | undefined> = {};
  const NAME = 'k8sfaults-resume';

  before(async function () {
    kit = await useKit(this);
    cutter = await tcpCutter(Number(kit.ports.APISERVER_PORT));
    // Every call of this process goes through the relay (the API server's certificate names 127.0.0.1).
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-k8sfaults-'));
    const kc = path.join(dir, 'relay.kubeconfig');
    fs.writeFileSync(kc, fs.readFileSync(kit.kubeconfig, 'utf8').replace(/server: https:\/\/127\.0\.0\.1:\d+/, `server: https://127.0.0.1:${cutter.port}`), { mode: 0o600 });
    for (const [k, v] of Object.entries({ ...kitProviderEnv(kit), KUBECONFIG: kc })) {
      saved[k] = process.env[k];
      process.env[k] = v;
    }
    // The follow, not the launch grace: the down at the end need not idle out the minute.
    ops = await kubeOps(SHORT_LAUNCH_GRACE);
  });
  after(async () => {
    await down(ops, NAME, { graceSeconds: 1 }).catch(() => undefined);
    await ops.dispose();
    await cutter?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
    for (const [k, v] of Object.entries(saved)) if (v === undefined) delete process.env[k]; else process.env[k] = v;
    if (kit) await releaseKit();
  });

  it('cut twice mid-follow: the bytes received equal the job log on the pod', async () => {
    const ws = ops.workspaceRoot;
    await launch(ops, { taskFile: writeTask(ws, 'up.yaml', 'resources: {infra: k8s}\nrun: echo up\n'), cluster: NAME });
    const t = writeTask(ws, 'chatty.yaml', [
      'run: |',
      // A pause first: the follow is attached before the output starts, so it arrives in many chunks.
      '  sleep 2; i=0; pad=$(head -c 300 /dev/zero | tr "\\0" x)',
      '  while [ $i -lt 300 ]; do printf "line %05d \\r progress %s\\n" $i "$pad"; i=$((i+1)); [ $((i % 10)) -eq 0 ] && sleep 0.1; done',
    ].join('\n'));
    const { jobId } = await exec(ops, { cluster: NAME, taskFile: t, detach: true });
    const chunks: Buffer[] = [];
    let cut = 0;
    let got = 0;
    let reconnects = 0;
    // Cut at the first byte and again past a third of the ~99 KB the job writes.
    const cutsAt = [1, 33_000];
    const final = await logs(ops, {
      cluster: NAME, jobId,
      onOutput: (d) => {
        chunks.push(Buffer.from(d));
        got += d.length;
        while (cutsAt.length && got >= cutsAt[0]) {
          cutsAt.shift();
          cut += cutter.cutAll();
        }
      },
      onReconnect: () => reconnects++,
    });
    assert.equal(final.final?.status, 'SUCCEEDED');
    assert.ok(cut > 0, 'a connection was really cut');
    assert.ok(reconnects > 0, 'the follower noticed and reconnected');
    const row = (await ops.store.read((db) => getCluster(db, NAME)))!;
    const k = readHandle(row).kube!;
    const pod = createKubeTransport({ context: k.context, namespace: k.namespace, container: k.container, pod: k.pods[0] });
    const onPod = await pod.exec(['/bin/sh', '-c', `base64 -w0 ~/.skydeck/logs/${jobId}/run.log`]);
    assert.equal(onPod.code, 0, onPod.stderr.toString());
    const expected = Buffer.from(onPod.stdout.toString(), 'base64');
    assert.ok(expected.length > 90_000, `the job wrote its log (${expected.length} bytes)`);
    assert.deepEqual(Buffer.concat(chunks), expected);
  });
});
