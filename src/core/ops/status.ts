import { listClusters, listRefusedClusters, notOursReason, refusedMessage, type ClusterRecord } from '../state';
import { needsReconcile, reconcileOne, refreshOne } from '../provision';
import type { OpsContext } from './context';
import { OpsError } from './errors';
import { envFor, isProviderCluster, providerOf } from './providerEnv';

/** The head agent's autostop as `status` reports it (agent/README.md#autostop). */
export interface LiveAutostop {
  /** Seconds until the cluster stops itself; null while busy. */
  firesIn: number | null;
  /** What the last self-stop could not do (the cluster may still be billing). */
  problems: string[];
  /** Seconds a launch still holds autostop off (its job not yet submitted; agent `held_until`). */
  heldFor?: number;
}

export interface ClusterStatus {
  cluster: ClusterRecord;
  /** From the agent when refreshed: running and pending job counts, and its autostop clock. */
  live?: { running: number; pending: number; autostop?: LiveAutostop };
  /** Why the agent (or the cloud) could not be asked. */
  error?: string;
  /** What a refresh changed, e.g. "removed: no live instance ..." or "head i-1 is stopped". */
  note?: string;
  /** The refresh proved the cluster gone and removed its row; `cluster` is the last row seen. */
  removed?: boolean;
  /** Why this machine does not act on the row by itself (it did not launch it). */
  notOurs?: string;
}

/** Rows refused when read (state/rowCheck.ts), as messages: listed so nothing is hidden. */
export async function refusedClusters(ctx: OpsContext): Promise<string[]> {
  return (await ctx.store.read((db) => listRefusedClusters(db))).map(refusedMessage);
}

/**
 * Clusters from the state. With `refresh`, in parallel per cluster: cloud clusters are checked
 * against their provider first (one query; grace window; crash recovery for INIT or flagged
 * rows, see provision/reconcile.ts), then every UP cluster's agent is asked for its jobs.
 */
export async function status(ctx: OpsContext, opts: { refresh?: boolean; timeoutMs?: number } = {}): Promise<ClusterStatus[]> {
  const clusters = await ctx.store.read((db) => listClusters(db));
  const notOurs = (c: ClusterRecord) => {
    const why = notOursReason(c);
    return why ? { notOurs: `not launched from this machine: ${why}; Skydeck does not check or act on it by itself` } : {};
  };
  if (!opts.refresh) return clusters.map((cluster) => ({ cluster, ...notOurs(cluster) }));
  return Promise.all(
    clusters.map(async (seen): Promise<ClusterStatus> => {
      // A refresh may finish a teardown or delete the row: never for a row this machine did not write.
      if (notOursReason(seen)) return { cluster: seen, ...notOurs(seen) };
      const cloud = await refreshCloud(ctx, seen).catch((e: Error): ClusterStatus => ({ cluster: seen, error: e.message }));
      if (cloud.removed || cloud.error) return cloud;
      const cluster = cloud.cluster;
      if (cluster.status !== 'UP') return cloud;
      try {
        const s = await withTimeout(ctx.connections.client(cluster).status(), opts.timeoutMs ?? 20_000, cluster.name);
        return { ...cloud, live: { running: Number(s.running), pending: Number(s.pending), ...liveAutostop(s.autostop) } };
      } catch (e) {
        return { ...cloud, error: (e as Error).message };
      }
    }),
  );
}

/** One row checked with its cloud (as `status --refresh`); the row as it is now, undefined once removed. */
export async function refreshCloudRow(ctx: OpsContext, row: ClusterRecord): Promise<ClusterRecord | undefined> {
  const r = await refreshCloud(ctx, row);
  if (r.error) throw new OpsError('failed', `${row.name}: ${r.error}`);
  return r.removed ? undefined : r.cluster;
}

async function refreshCloud(ctx: OpsContext, row: ClusterRecord): Promise<ClusterStatus> {
  if (!isProviderCluster(row) || !providerOf(ctx, row.provider)) return { cluster: row };
  const env = envFor(ctx, row.provider);
  if (needsReconcile(row)) {
    const r = await reconcileOne(env, row);
    const cur = await ctx.store.read((db) => listClusters(db).find((c) => c.name === row.name && c.uid === row.uid));
    const note = r.action === 'unchanged' ? undefined : `${r.action}${r.message ? `: ${r.message}` : ''}`;
    return cur ? { cluster: cur, note, ...(r.action === 'error' ? { error: r.message } : {}) } : { cluster: row, removed: true, note };
  }
  const r = await refreshOne(env, row);
  if (r.action === 'removed') return { cluster: row, removed: true, note: `removed: ${r.message}` };
  if (r.action === 'error') return { cluster: row, error: `could not check with the cloud: ${r.message}` };
  return { cluster: r.row ?? row, note: r.action === 'updated' ? r.message : undefined };
}

function liveAutostop(a: unknown): { autostop?: LiveAutostop } {
  if (!a || typeof a !== 'object') return {};
  const x = a as { fires_in?: number | null; held_until?: number | null; last_result?: { problems?: unknown[] } | null };
  const problems = (x.last_result?.problems ?? []).map(String);
  const held = typeof x.held_until === 'number' ? x.held_until - Date.now() / 1000 : 0;
  return { autostop: { firesIn: typeof x.fires_in === 'number' ? x.fires_in : null, problems, ...(held > 0 ? { heldFor: held } : {}) } };
}

function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    p.finally(() => clearTimeout(timer)),
    new Promise<T>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms / 1000} s`)), ms))),
  ]);
}
