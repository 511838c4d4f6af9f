// What one MOUNT adds to a launch: `launch` (src/core/ops) of the same one-line task on an ssh
// pool made of the storage test host, with and without `file_mounts: {~/bench-mnt: {source:
// s3://<bucket>, mode: MOUNT}}`, each followed to the job's end and torn down. One warm-up launch
// of each first (the agent's first install, and the first load of the code that finds the
// keys, happen once per process: reported apart as cold_*), then alternating rounds; the
// figure is best-with minus best-without. A version that still refuses bucket mounts at launch
// gives a skip with its own words, not a number.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import YAML from 'yaml';
import { down, launch, OpsError, type OpsContext } from '../src/core/ops';
import type { StoreAccess } from '../src/core/storage';
import { testOps } from '../test/integration/ops/helpers';
import type { TestHosts } from '../test/hosts';

export type LaunchFigure = { with_s: number[]; without_s: number[]; cold_without_s: number; cold_with_s: number } | { skipped: string };

/**
 * Gives the launch its way to the bucket through OpsContext's storage fields:
 * moto's endpoint, and the opt-in to share the user's keys with a node that has no identity of
 * its own (an ssh pool; issue 16, Credentials). The keys are found as the aws CLI finds them,
 * so this process's environment holds moto's dummy keys while the launches run.
 */
function withStorage(ops: OpsContext, access: StoreAccess): { ctx: OpsContext; restore(): void } {
  if (access.credentials.kind !== 'keys') throw new Error('the launch bench shares explicit keys');
  const names = ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN', 'AWS_PROFILE'] as const;
  const saved = names.map((n) => [n, process.env[n]] as const);
  for (const n of names) delete process.env[n];
  process.env.AWS_ACCESS_KEY_ID = access.credentials.accessKeyId;
  process.env.AWS_SECRET_ACCESS_KEY = access.credentials.secretAccessKey;
  const ctx: OpsContext = { ...ops, storageCredentials: 'share', storageAccess: { endpoint: access.endpoint, region: access.region } };
  return {
    ctx,
    restore() {
      for (const [n, v] of saved) {
        if (v === undefined) delete process.env[n];
        else process.env[n] = v;
      }
    },
  };
}

export async function measureLaunch(hosts: TestHosts, bucket: string, access: StoreAccess, log: (s: string) => void): Promise<LaunchFigure> {
  const h = hosts.hosts[0];
  const pool = { name: 'bench', hosts: [{ address: h.address, port: h.port, user: h.user, identityFile: hosts.clientKeyPath }] };
  const noSsh = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-bench-nossh-'));
  const ops = await testOps({ pools: [pool], connections: { sshDefaults: { agent: false, sshDir: noSsh, userKnownHostsFiles: [] } } });
  fs.writeFileSync(path.join(ops.workspaceRoot, 'known_hosts'), hosts.knownHostsLine(h) + '\n');
  const { ctx, restore } = withStorage(ops, access);
  const taskFile = (name: string, body: object): string => {
    const f = path.join(ops.workspaceRoot, `${name}.yaml`);
    fs.writeFileSync(f, YAML.stringify(body));
    return f;
  };
  const plain = taskFile('plain', { resources: { cloud: 'ssh' }, run: 'true' });
  const mounted = taskFile('mounted', {
    resources: { cloud: 'ssh' }, run: 'ls ~/bench-mnt >/dev/null',
    file_mounts: { '~/bench-mnt': { source: `s3://${bucket}`, mode: 'MOUNT' } },
  });
  const once = async (file: string, cluster: string): Promise<number> => {
    const t0 = performance.now();
    try {
      const r = await launch(ctx, { taskFile: file, cluster });
      if (r.final?.status !== 'SUCCEEDED') throw new Error(`launch ${path.basename(file)}: job ended ${r.final?.status ?? 'unfollowed'}`);
      return (performance.now() - t0) / 1000;
    } finally {
      await down(ctx, cluster, { graceSeconds: 0, purge: true }).catch(() => undefined);
    }
  };
  try {
    const cold_without_s = await once(plain, 'warm');
    const cold_with_s = await once(mounted, 'warm-m');
    log(`cold launches: ${cold_without_s.toFixed(2)} s without MOUNT, ${cold_with_s.toFixed(2)} s with`);
    const out = { with_s: [] as number[], without_s: [] as number[], cold_without_s, cold_with_s };
    const rounds = Number(process.env.BENCH_STORAGE_ROUNDS || 2);
    for (let i = 0; i < rounds; i++) {
      const order = i % 2 === 0 ? ['without', 'with'] : ['with', 'without'];
      for (const kind of order) {
        if (kind === 'with') out.with_s.push(await once(mounted, `m${i}`));
        else out.without_s.push(await once(plain, `p${i}`));
        log(`launch ${kind} MOUNT: ${(kind === 'with' ? out.with_s : out.without_s).at(-1)!.toFixed(2)} s`);
      }
    }
    return out;
  } catch (e) {
    if (e instanceof OpsError && e.kind === 'unavailable') return { skipped: `launch refused the MOUNT task: ${e.message}` };
    throw e;
  } finally {
    restore();
    await ops.dispose();
    fs.rmSync(noSsh, { recursive: true, force: true });
  }
}
