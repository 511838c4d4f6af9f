// Stops the kit's kubelet and starts it again exactly as up.sh did (same argv, env, cwd; output
// appended to its log; signals as nohup leaves them), for fault tests. The restart cannot
// join the kit's process group (setpgid needs the same session, and the test runs in
// another), so it gets a session of its own; its pid goes in pids/kubelet.pid, which down.sh
// stops by. Callers restart in an after hook, so the shared kit is healthy even on failure.
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as k8s from '@kubernetes/client-node';
import type { Kit } from './k8sKit';

export interface StoppedKubelet {
  /** Starts it again and waits until the node's lease is renewed by it and the node is Ready. */
  restart(): Promise<void>;
}

function nul(file: string): string[] {
  return fs.readFileSync(file).toString('utf8').split('\0').filter((s) => s.length);
}

function alive(pid: number): boolean {
  try {
    const st = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return st.slice(st.lastIndexOf(')') + 2, st.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

export async function stopKubelet(kit: Kit): Promise<StoppedKubelet> {
  const pidFile = path.join(kit.runDir, 'pids', 'kubelet.pid');
  const pid = Number(fs.readFileSync(pidFile, 'utf8').trim());
  const argv = nul(`/proc/${pid}/cmdline`);
  if (!argv[0]?.endsWith('/kubelet')) throw new Error(`pid ${pid} in ${pidFile} is not the kubelet: ${argv.join(' ')}`);
  const env = Object.fromEntries(nul(`/proc/${pid}/environ`).map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]));
  const cwd = fs.readlinkSync(`/proc/${pid}/cwd`);
  const log = fs.readlinkSync(`/proc/${pid}/fd/1`);
  process.kill(pid, 'SIGTERM');
  for (let i = 0; alive(pid); i++) {
    if (i === 200) process.kill(pid, 'SIGKILL');
    await new Promise((r) => setTimeout(r, 50));
  }
  // Dead now: any lease renewal after this is the new kubelet's.
  const stoppedAt = Date.now();
  let restarted = false;
  return {
    async restart() {
      if (restarted) return;
      restarted = true;
      const out = fs.openSync(log, 'a');
      try {
        // nohup as up.sh's `start` ran it: SIGHUP ignored; stdin /dev/null; stdout+stderr the log.
        const child = spawn('/usr/bin/nohup', argv, { cwd, env, stdio: ['ignore', out, out], detached: true });
        child.unref();
        await new Promise<void>((res, rej) => child.once('spawn', res).once('error', rej));
        fs.writeFileSync(pidFile, `${child.pid}\n`);
      } finally {
        fs.closeSync(out);
      }
      await nodeReady(kit, stoppedAt);
    },
  };
}

/** The kubelet renewed the node's lease after `since`, and the node says Ready. */
async function nodeReady(kit: Kit, since: number): Promise<void> {
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(kit.kubeconfig);
  const coord = kc.makeApiClient(k8s.CoordinationV1Api);
  const core = kc.makeApiClient(k8s.CoreV1Api);
  const end = Date.now() + 120_000;
  for (;;) {
    try {
      const lease = await coord.readNamespacedLease({ name: 'skydeck-node', namespace: 'kube-node-lease' });
      const renewed = lease.spec?.renewTime ? new Date(lease.spec.renewTime).getTime() : 0;
      const node = await core.readNode({ name: 'skydeck-node' });
      const ready = node.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True';
      if (renewed > since && ready) return;
    } catch {
      // The API answers throughout; a failed read is retried until the deadline.
    }
    if (Date.now() > end) throw new Error('the kit\'s node did not become Ready within 120 s of the kubelet restart');
    await new Promise((r) => setTimeout(r, 500));
  }
}
