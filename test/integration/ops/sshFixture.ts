// Real sshd pool hosts for the ops tests, and OpsContexts that reach them as a user would
// (pool config, Skydeck's own known_hosts) but never touch the real ~/.ssh or an ssh-agent.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { down } from '../../../src/core/ops';
import type { SshPool } from '../../../src/core/clouds/sshPools';
import { startHosts, type TestHosts } from '../../hosts';
import { testOps, type TestOps } from './helpers';
import type { ConnectionsOptions } from '../../../src/core/ops/connections';

export interface SshFixture {
  env: TestHosts;
  pool: SshPool;
  /** An OpsContext whose known_hosts already trusts the pool ('known') or is empty. */
  ops(knownHosts: 'known' | 'unknown', extra?: Partial<ConnectionsOptions>): Promise<TestOps>;
  /** Downs every cluster of `o` (purging) and closes it. */
  cleanup(o: TestOps | undefined): Promise<void>;
}

export async function sshFixture(hosts: number): Promise<SshFixture> {
  const env = await startHosts(hosts);
  const pool: SshPool = {
    name: 'lab',
    hosts: env.hosts.map((h) => ({ address: h.address, port: h.port, user: h.user, identityFile: env.clientKeyPath })),
  };
  const emptySshDir = fs.mkdtempSync(path.join(env.dir, 'no-ssh-'));
  return {
    env,
    pool,
    async ops(knownHosts, extra = {}) {
      const o = await testOps({
        pools: [pool],
        connections: { ...extra, sshDefaults: { agent: false, sshDir: emptySshDir, userKnownHostsFiles: [], ...extra.sshDefaults } },
      });
      if (knownHosts === 'known') {
        fs.writeFileSync(path.join(o.workspaceRoot, 'known_hosts'), env.hosts.map((h) => env.knownHostsLine(h)).join('\n') + '\n');
      }
      return o;
    },
    async cleanup(o) {
      if (!o) return;
      const names = await o.store.read((db) => db.exec('SELECT name FROM clusters')[0]?.values.map((v) => String(v[0])) ?? []);
      for (const c of names) await down(o, c, { graceSeconds: 1, purge: true }).catch(() => undefined);
      await o.dispose();
    },
  };
}
