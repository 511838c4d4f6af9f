import type { Database } from 'sql.js';
import { appendEvent, type ClusterRecord, type EventRecord } from '../state';
import { isKnown } from './price';
import { PriceBook } from './priceBook';
import { clusterCost } from './spend';

/** What the events log keeps of a finished cluster (`skydeck cost-report`). */
export interface EndedCluster {
  name: string;
  uid: string;
  provider: string;
  region: string | null;
  instanceType?: string;
  spot: boolean;
  nodes: number;
  launchedAt: number;
  endedAt: number;
  runningMs: number;
  stoppedMs: number;
  /** USD/h while running, if known. */
  usdPerHour?: number;
  /** Total; absent when a price was unknown (then `unknown` says which). */
  costUsd?: number;
  unknown?: string;
  priceSource?: string;
  priceAsOf?: string;
}

/**
 * Written in the same transaction that deletes the row after proof: the cluster's duration
 * and cost, priced from what is on this machine at that moment, so the report never needs
 * the row again. Never throws: a failure to price must not hold back a delete.
 */
export function recordEnded(db: Database, row: ClusterRecord, now: number, book = new PriceBook()): void {
  try {
    appendEvent(db, { cluster: row.name, kind: 'ended', message: `${row.name} ended`, ts: now, data: { uid: row.uid } });
    const c = clusterCost(db, row, book, now);
    const data: EndedCluster = {
      name: row.name, uid: row.uid, provider: row.provider, region: row.region, spot: c.rate.spot, nodes: c.rate.nodes,
      launchedAt: row.launched_at, endedAt: now, runningMs: c.time.runningMs, stoppedMs: c.time.stoppedMs,
      ...(c.rate.instanceType ? { instanceType: c.rate.instanceType } : {}),
      ...(isKnown(c.rate.running) ? { usdPerHour: c.rate.running.usdPerHour, priceSource: c.rate.running.source, priceAsOf: c.rate.running.asOf } : {}),
      ...(c.spentUsd !== undefined ? { costUsd: c.spentUsd } : { unknown: c.unknown }),
    };
    appendEvent(db, { cluster: row.name, kind: 'cost', message: `ran ${Math.round(c.time.runningMs / 60_000)} min`, ts: now, data });
  } catch {
    // Pricing is a report; the delete after proof is what matters.
  }
}

/** Finished clusters of this workspace, newest first; entries that do not parse are skipped. */
export function endedClusters(db: Database, limit = 1000): EndedCluster[] {
  const res = db.exec("SELECT id, ts, cluster, kind, message, data FROM events WHERE kind = 'cost' ORDER BY id DESC LIMIT ?", [limit]);
  const rows = (res[0]?.values ?? []).map((v) => ({ id: v[0], ts: v[1], cluster: v[2], kind: v[3], message: v[4], data: v[5] }) as EventRecord);
  return rows.flatMap((e) => {
    const d = parseEnded(e.data);
    return d ? [d] : [];
  });
}

const finite = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x) && x >= 0;

/** The workspace file may come from anyone: each field is checked before it is shown. */
export function parseEnded(raw: string | null): EndedCluster | undefined {
  try {
    const d = JSON.parse(raw ?? 'null') as Partial<EndedCluster>;
    if (!d || typeof d.name !== 'string' || typeof d.uid !== 'string' || typeof d.provider !== 'string') return undefined;
    if (![d.launchedAt, d.endedAt, d.runningMs, d.stoppedMs, d.nodes].every(finite)) return undefined;
    for (const k of ['usdPerHour', 'costUsd'] as const) if (d[k] !== undefined && !finite(d[k])) return undefined;
    return d as EndedCluster;
  } catch {
    return undefined;
  }
}
