// Open SSH Terminal on a Kubernetes cluster: a login shell with a TTY through the exec API
// (no sshd in the pod), in the workdir, with resizes and the exit code passed on.
import * as assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import * as k8s from '@kubernetes/client-node';
import { KubeApi } from '../../../src/core/clouds/kubernetes/api';
import { openKubeShell } from '../../../src/core/clouds/kubernetes/ttyShell';
import type { InteractiveShell } from '../../../src/core/transport/types';
import { releaseKit, useKit, type Kit } from '../../support/k8sKit';
import { waitFor } from '../ops/helpers';

describe('kubernetes: a terminal in the head pod through exec with a TTY', function () {
  this.timeout(5 * 60_000);
  let kit: Kit;
  let core: k8s.CoreV1Api;
  const pod = `k8sleaks-shell-${randomUUID().slice(0, 8)}`;

  before(async function () {
    kit = await useKit(this);
    const kc = new k8s.KubeConfig();
    kc.loadFromFile(kit.kubeconfig);
    core = kc.makeApiClient(k8s.CoreV1Api);
    await core.createNamespacedPod({ namespace: 'default', body: {
      metadata: { name: pod },
      spec: { hostNetwork: true, restartPolicy: 'Never', terminationGracePeriodSeconds: 1, containers: [{
        name: 'node', image: 'skydeck.test/pod:latest', imagePullPolicy: 'Never',
        command: ['/bin/sh', '-c', 'mkdir -p \'/tmp/a dir/$(x)\'; trap "exit 0" TERM; while :; do sleep 1; done'],
      }] },
    } });
    await waitFor('the pod running', async () => (await core.readNamespacedPod({ name: pod, namespace: 'default' })).status?.phase === 'Running', 120_000);
  });
  after(async () => {
    if (core) await core.deleteNamespacedPod({ name: pod, namespace: 'default', gracePeriodSeconds: 0 }).catch(() => undefined);
    if (kit) await releaseKit();
  });

  const open = async (cwd?: string) => {
    const api = new KubeApi({ kubeconfig: kit.kubeconfig });
    const sh = await openKubeShell(api, { context: api.target().context, namespace: 'default', pod, container: 'node' }, { cols: 80, rows: 24, cwd });
    let out = '';
    sh.onData((b) => (out += b.toString()));
    const closed = new Promise<number | null>((r) => sh.onClose(r));
    return { sh, out: () => out, closed };
  };
  const run = async (s: { sh: InteractiveShell; out: () => string }, line: string, want: RegExp) => {
    s.sh.write(line);
    await waitFor(`${JSON.stringify(line)} → ${want}`, async () => want.test(s.out()), 30_000).catch((e: Error) => {
      throw new Error(`${e.message}; the terminal showed ${JSON.stringify(s.out())}`);
    });
  };

  it('echo $((6*7)) gives 42 on a TTY, in the workdir; a resize reaches stty; exit 3 is the code', async () => {
    const s = await open('/tmp/a dir/$(x)');
    await run(s, 'echo $((6*7)); tty; pwd\n', /[\r\n]42\r\n\/dev\/pts\/\d+\r\n\/tmp\/a dir\/\$\(x\)\r\n/);
    s.sh.resize(123, 45);
    // The kubelet applies a resize on its own goroutine, apart from stdin: a line typed right
    // after it may still see the old size. Asked again, stty must see the new one.
    await waitFor('stty size → 45 123', async () => {
      s.sh.write('stty size\n');
      await new Promise((r) => setTimeout(r, 300));
      return /[\r\n]45 123\r\n/.test(s.out());
    }, 30_000).catch((e: Error) => {
      throw new Error(`${e.message}; the terminal showed ${JSON.stringify(s.out())}`);
    });
    s.sh.write('exit 3\n');
    assert.equal(await s.closed, 3);
  });

  it('a workdir that does not exist leaves the shell at home; closing it ends the session', async () => {
    const s = await open('/nope');
    await run(s, 'pwd\n', /[\r\n]\/root\r\n/);
    s.sh.close();
    const code = await s.closed;
    assert.ok(code === null || typeof code === 'number');
  });
});
