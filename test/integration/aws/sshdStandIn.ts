// For AWS tests whose clusters must really run a task: moto's instances are records, not
// machines, and the addresses it hands out are never to be connected to. This bootstrap gives
// each new cluster (by uid, in launch order) one of the loopback sshd test hosts as its head,
// so the agent is installed and the task runs there through the normal SSH path.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { realClock, type Bootstrap } from '../../../src/core/provision';
import { staticProviders, type Provider } from '../../../src/core/clouds/provider';
import { StateStore } from '../../../src/core/state';
import { Connections, agentBootstrap, type OpsContext } from '../../../src/core/ops';
import type { TestHosts } from '../../hosts';

export function sshdStandIn(base: Bootstrap, hosts: TestHosts, given = new Map<string, number>()): Bootstrap {
  const boot: Bootstrap = async (row, info, signal) => {
    let i = given.get(row.uid);
    if (i === undefined) given.set(row.uid, (i = given.size));
    const h = hosts.hosts[i];
    if (!h) throw new Error(`sshdStandIn: no test host left for cluster ${row.name} (${hosts.hosts.length} given out)`);
    if (info.workers.length) throw new Error('sshdStandIn: single-node clusters only');
    return base(row, { ...info, head: { id: info.head.id, address: h.address }, sshPort: h.port, sshUser: h.user, sshKeyPath: hosts.clientKeyPath }, signal);
  };
  // A launch's autostop hold (launchProvider.ts) reaches the real bootstrap, as on a cloud;
  // the hosts already given out stay given.
  if (base.withHold) boot.withHold = (s) => sshdStandIn(base.withHold!(s), hosts, given);
  return boot;
}

/**
 * The ops context of a test whose cloud clusters' heads are the loopback sshd `hosts`: a fresh
 * workspace under `dir` that trusts exactly those hosts' keys, no ssh pools, none of this
 * machine's ssh settings, fast provision timing, and the stand-in bootstrap.
 */
export async function standInContext(o: { dir: string; hosts: TestHosts; provider: Provider; progress?: string[]; extra?: Partial<OpsContext> }): Promise<OpsContext> {
  const root = fs.mkdtempSync(path.join(o.dir, 'ws-'));
  fs.writeFileSync(path.join(root, 'known_hosts'), o.hosts.hosts.map((h) => o.hosts.knownHostsLine(h)).join('\n') + '\n');
  const noSsh = fs.mkdtempSync(path.join(o.dir, 'no-ssh-'));
  const progress = o.progress;
  const ctx: OpsContext = {
    store: await StateStore.openWorkspace(root), workspaceRoot: root, sshPools: () => ({ pools: [], errors: [] }),
    connections: new Connections({ knownHostsFile: path.join(root, 'known_hosts'), workspaceRoot: root, sshDefaults: { agent: false, sshDir: noSsh, userKnownHostsFiles: [] } }),
    progress: (m) => progress?.push(m), log: () => undefined, warn: (m) => progress?.push(`warn: ${m}`), user: 'tester',
    providers: staticProviders(o.provider), clock: realClock,
    timing: { launchGraceMs: 2000, pollMs: 100, runningTimeoutMs: 20_000, confirmTimeoutMs: 10_000, reissueAfterMs: 1000, transientRetries: 1, backoffMs: 50 },
    ...o.extra,
  };
  ctx.bootstrap = sshdStandIn(agentBootstrap(ctx), o.hosts);
  return ctx;
}
