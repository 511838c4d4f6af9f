import { randomUUID } from 'node:crypto';
import {
  appendEvent, getCluster, listClusters, putCluster, thisCreator, type ClusterRecord,
} from '../state';
import { hostKey, type HostSpec } from '../clouds/hostSpec';
import type { SshPool } from '../clouds/sshPools';
import type { OpsContext } from './context';
import { localBaseDir } from './context';
import { clearUnownedLocalBase, localBaseProblem } from './localBase';
import { OpsError } from './errors';
import { readHandle, type ReachableHandle } from './clusterHandle';
import { teardownUnderWay } from '../provision/handle';

export const REACHABLE_CLOUDS = ['local', 'ssh'] as const;

/** Picks the pool a task's `infra: ssh/<pool>` (or the only pool) names. */
export function choosePool(ctx: OpsContext, wanted: string | undefined): SshPool {
  const { pools, errors } = ctx.sshPools();
  if (errors.length) throw new OpsError('usage', `SSH pool configuration has problems:\n  ${errors.join('\n  ')}`);
  if (pools.length === 0) {
    throw new OpsError('usage', 'no SSH pools are configured: add one to ~/.skydeck/ssh_pools.yaml or the setting skydeck.sshPools, e.g.\n  mypool:\n    hosts: [user@10.0.0.5]\n    identity_file: ~/.ssh/id_ed25519');
  }
  if (!wanted) {
    if (pools.length === 1) return pools[0];
    throw new OpsError('usage', `several SSH pools exist (${pools.map((p) => p.name).join(', ')}): name one with "infra: ssh/<pool>"`);
  }
  const p = pools.find((x) => x.name === wanted);
  if (!p) throw new OpsError('usage', `no SSH pool named "${wanted}" (known: ${pools.map((x) => x.name).join(', ')})`);
  return p;
}

/**
 * Writes the cluster's intent row (INIT, fresh uid) and, for the ssh cloud, claims free hosts
 * of the pool in the same transaction, so two launches can never take the same machine.
 * `created` is false when a row of that name was already there (it is returned instead).
 * A new local row starts from an empty directory, cleared in the same transaction (`cleared`
 * says something was removed): no racing launch, nor a relaunch after this one is killed,
 * finds the row while files no row owned (a planted jobs.db) are still there.
 */
export async function writeIntent(
  ctx: OpsContext,
  name: string,
  cloud: 'local' | 'ssh',
  numNodes: number,
  pool: SshPool | undefined,
  autostop: { minutes: number | null; down: boolean },
): Promise<{ row: ClusterRecord; created: boolean; cleared: boolean }> {
  return ctx.store.write((db) => {
    const existing = getCluster(db, name);
    // Checked in the same transaction that hands the row to the launch: a down that flags
    // the row after this point is caught by launch's check after the submit.
    const busy = existing && teardownUnderWay(existing);
    if (busy) throw new OpsError('failed', busy);
    if (existing) return { row: existing, created: false, cleared: false };
    let hosts: HostSpec[] = [];
    if (cloud === 'ssh') {
      const taken = new Map<string, string>();
      for (const c of listClusters(db)) {
        if (c.provider !== 'ssh') continue;
        for (const h of readHandle(c).hosts) taken.set(hostKey(h), c.name);
      }
      const free = pool!.hosts.filter((h) => !taken.has(hostKey(h)));
      if (free.length < numNodes) {
        const users = [...new Set(taken.values())].join(', ');
        throw new OpsError(
          'failed',
          `SSH pool "${pool!.name}" has ${free.length} free host(s) of ${pool!.hosts.length}, the task needs ${numNodes}` +
            (users ? ` (in use by: ${users}; "skydeck down" one of them)` : ''),
        );
      }
      hosts = free.slice(0, numNodes);
    }
    let cleared = false;
    if (cloud === 'local') {
      const problem = localBaseProblem(ctx.workspaceRoot, name);
      if (problem) throw new OpsError('usage', `cannot launch ${name} on this machine: ${problem}. Remove the link (or move the folder away) and retry`);
      cleared = clearUnownedLocalBase(ctx.workspaceRoot, name);
    }
    const handle: ReachableHandle = {
      hosts,
      pool: pool?.name,
      base: cloud === 'local' ? localBaseDir(ctx.workspaceRoot, name) : undefined,
      workdir: '',
    };
    const now = Date.now();
    const creator = thisCreator();
    const row: ClusterRecord = {
      name, uid: randomUUID(), provider: cloud, region: pool?.name ?? null, zone: null, status: 'INIT',
      resources: null, num_nodes: numNodes, head_address: hosts[0]?.address ?? 'localhost',
      ssh_user: hosts[0]?.user ?? null, ssh_port: hosts[0]?.port ?? null, ssh_key_path: hosts[0]?.identityFile ?? null,
      handle: JSON.stringify(handle), launched_at: now, updated_at: now, last_error: null,
      autostop_minutes: autostop.minutes, autostop_down: autostop.down ? 1 : 0, flags: null, account: null,
      created_by_user: creator.user, created_by_machine: creator.machine,
    };
    putCluster(db, row);
    appendEvent(db, { cluster: name, kind: 'intent', message: `launch on ${cloud}${pool ? ` pool ${pool.name}` : ''}`, data: { uid: row.uid, hosts: hosts.map(hostKey) } });
    return { row, created: true, cleared };
  });
}

/**
 * Records a step's outcome on the row of this uid (status, handle, error) and in the events
 * log. A row that is gone or now belongs to another uid is never written.
 */
export async function updateCluster(
  ctx: OpsContext,
  row: Pick<ClusterRecord, 'name' | 'uid'>,
  patch: Partial<ClusterRecord>,
  event?: { kind: string; message: string },
): Promise<ClusterRecord> {
  const name = row.name;
  return ctx.store.write((db) => {
    const cur = getCluster(db, name);
    if (!cur || cur.uid !== row.uid) throw new OpsError('failed', `cluster ${name} (uid ${row.uid}) was removed from the state by another operation meanwhile`);
    const next = { ...cur, ...patch, updated_at: Date.now() };
    putCluster(db, next);
    if (event) appendEvent(db, { cluster: name, ...event });
    return next;
  });
}
