// The real single-node Kubernetes (test/k8s/kit) for the kubernetes provider's tests. One kit
// cluster per machine at a time: every test file shares RUN_DIR; up.sh is idempotent (a
// healthy cluster is reused). Under mocha it goes down when the run ends (kitLifecycle.ts).
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { skipOrFailWithout } from './ci';
import { holdKitForMochaRun, joinKit, KIT_RUN_DIR, runKitScript, startKitEarly } from './kitLifecycle';

export { KIT_RUN_DIR, releaseKit } from './kitLifecycle';
holdKitForMochaRun();

export interface Kit {
  kubeconfig: string;
  runDir: string;
  /** The kit's ports (APISERVER_PORT, ...). */
  ports: Record<string, string>;
}

/** Starts (or joins) the kit; under CI a kit that cannot start fails the suite, else it skips loudly. */
export async function useKit(ctx: Mocha.Context): Promise<Kit> {
  if (process.getuid?.() !== 0) {
    skipOrFailWithout(ctx, 'the Kubernetes tests (test/integration/kubernetes)', 'the kit needs root (it runs containerd and the kubelet)');
  }
  return joinOrStartKit();
}

/** useKit without mocha (benchmarks): the caller has checked for root already. */
export function joinOrStartKit(): Promise<Kit> {
  return joinKit(startKit);
}

async function startKit(): Promise<Kit> {
  const r = await runKitScript('up.sh', [KIT_RUN_DIR], 15 * 60_000);
  const last = r.stdout.trim().split('\n').pop() ?? '';
  if (r.code !== 0 || !last.startsWith('KUBECONFIG=')) {
    throw new Error(`the Kubernetes kit did not start (up.sh exit ${r.code}):\n${r.stderr.split('\n').slice(-40).join('\n')}`);
  }
  const ports: Record<string, string> = {};
  for (const line of fs.readFileSync(path.join(KIT_RUN_DIR, 'ports.env'), 'utf8').split('\n')) {
    const m = /^(\w+)=(.*)$/.exec(line.trim());
    if (m) ports[m[1]] = m[2];
  }
  return { kubeconfig: last.slice('KUBECONFIG='.length), runDir: KIT_RUN_DIR, ports };
}

// Under mocha: up.sh starts at the first test of the files that run just before the kit's in
// `npm test` (scripts/testSuites.mjs: the managed-jobs integration files, ~5 min of a run, more
// than a cold start needs), or at the first kit test, whichever comes first (kitLifecycle.ts).
const KIT_LEAD = /\/test\/(integration\/managed|integration\/kubernetes|unit\/provision\/kubernetes|unit\/support\/kubeFault)/;
startKitEarly(startKit, KIT_LEAD);

/** Whether a healthy kit already runs in RUN_DIR (its API server answers /readyz). */
export async function kitAlreadyUp(): Promise<boolean> {
  const pki = path.join(KIT_RUN_DIR, 'pki');
  let port: string | undefined;
  try {
    port = /^APISERVER_PORT=(\d+)$/m.exec(fs.readFileSync(path.join(KIT_RUN_DIR, 'ports.env'), 'utf8'))?.[1];
  } catch {
    return false;
  }
  if (!port) return false;
  const https = await import('node:https');
  return new Promise<boolean>((resolve) => {
    const req = https.get({
      host: '127.0.0.1', port: Number(port), path: '/readyz', timeout: 5_000,
      ca: fs.readFileSync(path.join(pki, 'ca.crt')), cert: fs.readFileSync(path.join(pki, 'admin.crt')), key: fs.readFileSync(path.join(pki, 'admin.key')),
    }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('error', () => resolve(false)).on('timeout', () => req.destroy());
  }).catch(() => false);
}

/** Env the provider reads for the kit: its local image, never pulled, on the host network. */
export function kitProviderEnv(kit: Kit): Record<string, string> {
  return {
    KUBECONFIG: kit.kubeconfig,
    SKYDECK_KUBERNETES_IMAGE: 'skydeck.test/pod:latest',
    SKYDECK_KUBERNETES_PULL_POLICY: 'Never',
    SKYDECK_KUBERNETES_HOST_NETWORK: '1',
  };
}

/** Sets `env` in this process; the function returned puts every value back as it was. */
export function setEnv(env: Record<string, string>): () => void {
  const saved: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(env)) {
    saved[k] = process.env[k];
    process.env[k] = v;
  }
  return () => {
    for (const [k, v] of Object.entries(saved)) if (v === undefined) delete process.env[k]; else process.env[k] = v;
  };
}

/** An API client of the kit as its admin (for a test's own look at pods and RBAC objects). */
export function kitClient<T extends k8s.ApiType>(kit: Kit, api: k8s.ApiConstructor<T>): T {
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(kit.kubeconfig);
  return kc.makeApiClient(api);
}
