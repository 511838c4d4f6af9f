import { listClusters, type ClusterRecord } from '../state';
import type { OpsContext } from './context';

export interface ClusterStatus {
  cluster: ClusterRecord;
  /** From the agent when refreshed: running and pending job counts. */
  live?: { running: number; pending: number };
  /** Why the agent could not be asked. */
  error?: string;
}

/** Clusters from the state; with `refresh`, every UP cluster's agent is asked in parallel. */
export async function status(ctx: OpsContext, opts: { refresh?: boolean; timeoutMs?: number } = {}): Promise<ClusterStatus[]> {
  const clusters = await ctx.store.read((db) => listClusters(db));
  if (!opts.refresh) return clusters.map((cluster) => ({ cluster }));
  return Promise.all(
    clusters.map(async (cluster): Promise<ClusterStatus> => {
      if (cluster.status !== 'UP') return { cluster };
      try {
        const s = await withTimeout(ctx.connections.client(cluster).status(), opts.timeoutMs ?? 20_000, cluster.name);
        return { cluster, live: { running: Number(s.running), pending: Number(s.pending) } };
      } catch (e) {
        return { cluster, error: (e as Error).message };
      }
    }),
  );
}

function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    p.finally(() => clearTimeout(timer)),
    new Promise<T>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms / 1000} s`)), ms))),
  ]);
}
