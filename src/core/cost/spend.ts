import type { Database } from 'sql.js';
import { listEvents, type ClusterRecord } from '../state';
import { clusterRate, type ClusterRate } from './clusterRate';
import { isKnown } from './price';
import type { PriceBook } from './priceBook';
import { billedTime, type BilledTime } from './timeline';

/** A cluster's rate now and what it has cost so far. */
export interface ClusterCost {
  rate: ClusterRate;
  time: BilledTime;
  /** USD so far; undefined when a price it needs is unknown (never 0 for "unknown"). */
  spentUsd?: number;
  /** Why `spentUsd` is unknown. */
  unknown?: string;
}

/** Enough events for years of stops and starts; status events are written only on change. */
const EVENT_LIMIT = 5000;

export function spendOf(rate: ClusterRate, time: BilledTime): Pick<ClusterCost, 'spentUsd' | 'unknown'> {
  const h = (ms: number) => ms / 3600_000;
  if (!rate.billed) return { spentUsd: 0 };
  if (time.runningMs > 0 && !isKnown(rate.running)) return { unknown: rate.running.unknown };
  if (time.stoppedMs > 0 && !isKnown(rate.stopped)) return { unknown: (rate.stopped as { unknown: string }).unknown };
  const run = isKnown(rate.running) ? rate.running.usdPerHour * h(time.runningMs) : 0;
  const stop = isKnown(rate.stopped) ? rate.stopped.usdPerHour * h(time.stoppedMs) : 0;
  return { spentUsd: run + stop };
}

/** Rate and spend of one cluster row, from the workspace's events log. */
export function clusterCost(db: Database, row: ClusterRecord, book: PriceBook, now: number): ClusterCost {
  const rate = clusterRate(row, book);
  const time = billedTime(listEvents(db, row.name, EVENT_LIMIT), row, now);
  return { rate, time, ...spendOf(rate, time) };
}

/** What the cluster's state costs per hour now: running nodes, a stopped cluster's disks. */
export function currentRate(row: ClusterRecord, rate: ClusterRate): ClusterRate['running'] {
  return row.status === 'STOPPED' ? rate.stopped : rate.running;
}
