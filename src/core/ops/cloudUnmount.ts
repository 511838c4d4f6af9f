// Bucket mounts of a cloud cluster, before its instances are stopped or terminated: each node's
// MOUNT_CACHED writes are flushed to the bucket and every mount is unmounted (bucketAttach.ts
// detachBuckets), so a stop does not freeze a half-uploaded cache on a disk and a down does not
// throw one away. Best-effort: the instances cost money while they run, so a node that cannot be
// reached (or a flush that fails) is a warning naming the node, never a reason to keep them.
import type { ClusterRecord } from '../state';
import type { Transport } from '../transport';
import type { OpsContext } from './context';
import { readHandle } from './clusterHandle';
import { workerBase } from './clusterNodes';
import { detachBuckets, type StorageNode } from './bucketAttach';

/** Time to reach a node and read its mount records; beyond it the node counts as unreachable. */
export const REACH_NODE_MS = 45_000;

export interface CloudUnmountOptions {
  /** MOUNT_CACHED: how long each cache may take to reach its bucket (default: DEFAULT_TIMEOUTS.flushMs). */
  flushMs?: number;
  reachMs?: number;
}

/**
 * Unmounts the recorded bucket mounts on every node of a running cloud cluster. Returns notes
 * (what was unmounted) and warnings (what was not, and why); never throws.
 */
export async function unmountCloudBuckets(ctx: OpsContext, row: ClusterRecord, opts: CloudUnmountOptions = {}): Promise<{ notes: string[]; warnings: string[] }> {
  // Stopped or never up: nothing is mounted. Flagged (a stop/down unconfirmed, being retried):
  // the nodes may be gone already, and waiting for them would only delay the retry.
  if (row.status !== 'UP' || row.flags || !row.handle) return { notes: [], warnings: [] };
  let hosts;
  try {
    const h = readHandle(row);
    hosts = h.hosts ?? [];
    if (!hosts.length && !h.local) return { notes: [], warnings: [] }; // no node was ever reached: none can hold a mount
  } catch {
    return { notes: [], warnings: [] };
  }
  const reachMs = opts.reachMs ?? REACH_NODE_MS;
  // Transports are made inside each node's attempt: making one can refuse (an untrusted row).
  const nodes: Array<{ label: string; open: () => StorageNodeAt }> = [
    { label: `the head of ${row.name}`, open: () => {
      const t = ctx.connections.transportForCluster(row);
      return { t, node: async () => ({ name: t.description, transport: t, stateBase: `${await headBase(ctx, row)}/storage` }) };
    } },
    ...hosts.slice(1).map((host) => ({ label: `worker ${host.address}`, open: (): StorageNodeAt => {
      const t = ctx.connections.transportForHost(host);
      return { t, node: async () => ({ name: host.address, transport: t, stateBase: `${await workerBase(t, row.uid)}/storage` }) };
    } })),
  ];
  const results = await Promise.allSettled(nodes.map(async (n) => {
    const { t, node } = n.open();
    try {
      return await detachBuckets(ctx, await withDeadline(node(), reachMs, `no answer within ${Math.round(reachMs / 1000)} s`), opts.flushMs);
    } finally {
      await t.close().catch(() => undefined);
    }
  }));
  const notes: string[] = [];
  const warnings: string[] = [];
  results.forEach((r, i) => {
    if (r.status === 'fulfilled') notes.push(...r.value);
    else {
      warnings.push(`bucket mounts on ${nodes[i].label} were not unmounted (${(r.reason as Error).message}); ` +
        'the instances go ahead regardless: MOUNT_CACHED writes not yet uploaded from that node may be lost');
    }
  });
  for (const w of warnings) ctx.warn(w);
  return { notes, warnings };
}

interface StorageNodeAt {
  t: Transport;
  node: () => Promise<StorageNode>;
}

/** The head's agent base dir (the head holds its mounts' records under <base>/storage). */
async function headBase(ctx: OpsContext, row: ClusterRecord): Promise<string> {
  const h = readHandle(row);
  if (h.base) return h.base;
  return (await ctx.connections.client(row).connect()).base;
}

function withDeadline<T>(p: Promise<T>, ms: number, why: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => { timer = setTimeout(() => reject(new Error(why)), ms); });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}
