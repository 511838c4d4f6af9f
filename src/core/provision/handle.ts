import type { ClusterRecord } from '../state';
import type { ClusterRef, Placement } from '../clouds/provider';
import type { ReachableHandle } from '../ops/clusterHandle';
import type { Owner } from './owner';

/**
 * What a provider cluster's row keeps in `handle`. The run bookkeeping is what makes proofs
 * sound: an instance the cloud has not shown yet is not gone (leak invariant 3).
 */
export interface ProviderHandle extends ReachableHandle {
  placement: Placement;
  /** Every instance id a run call returned for this uid. */
  instanceIds: string[];
  /** Ids of `instanceIds` some listing has shown (absent in older rows: see named.ts). */
  seenIds?: string[];
  headId?: string;
  /** Clock ms the latest run/start call was issued. */
  lastRunAt: number;
  /** True from the intent until that call's answer is recorded: its instances are unknown. */
  runInFlight: boolean;
  /** Clock ms that call's answer was recorded (instances may be created up to then). */
  runAnsweredAt?: number;
  /** Counts intents, so a refresh can tell that a launch moved on since it looked. */
  attempt: number;
  /** The process running this fresh launch, until it is UP; reconcile ends a dead one's. */
  launchOwner?: Owner;
}

export function providerHandle(row: ClusterRecord): ProviderHandle {
  const h = row.handle ? (JSON.parse(row.handle) as Partial<ProviderHandle>) : {};
  return {
    hosts: [], workdir: '', instanceIds: [], lastRunAt: row.launched_at, runInFlight: false, attempt: 0,
    placement: { cloud: row.provider, region: row.region ?? undefined, zone: row.zone ?? undefined, useSpot: false },
    ...h,
  };
}

/**
 * Where the launch grace window starts: the later of the last run call and its answer, as
 * instances can be created any time until the call returns.
 */
export function graceStart(h: ProviderHandle): number {
  return Math.max(h.lastRunAt, h.runAnsweredAt ?? 0);
}

/** The cluster's address: uid, placement and the account recorded at intent time (leak invariant 7). */
export function refOf(row: ClusterRecord): ClusterRef {
  const placement = recordedPlacement(row);
  const buckets = placement?.bucketAccess;
  return {
    uid: row.uid, region: row.region ?? undefined, zone: row.zone ?? undefined, ...(row.account ? { account: row.account } : {}),
    ...(buckets?.length ? { bucketAccess: buckets } : {}), ...(placement?.jobsController ? { jobsController: true } : {}),
  };
}

/** The recorded placement; a handle that does not parse is read as naming none. */
function recordedPlacement(row: ClusterRecord): Placement | undefined {
  try {
    return row.handle ? providerHandle(row).placement : undefined;
  } catch {
    return undefined;
  }
}

/** The `flags` column values (one at a time). Exported for the UI's "Retry Down". */
export const FLAGS = {
  /** A teardown started; crash recovery finishes it. */
  terminating: 'terminating',
  /** Terminate was asked but not confirmed within the bound: row kept, retry offered. */
  terminationUnconfirmed: 'termination-unconfirmed',
  stopping: 'stopping',
  stopUnconfirmed: 'stop-unconfirmed',
  /** A local/ssh down failed part-way: row kept, Retry Down offered. */
  downUnconfirmed: 'down-unconfirmed',
} as const;

/**
 * Why nothing may be submitted to this cluster because a teardown has started (or failed
 * part-way), or undefined. Launch and exec refuse such a cluster: a job sent into it would
 * be destroyed by a down that began before it.
 */
export function teardownUnderWay(row: ClusterRecord): string | undefined {
  const name = row.name;
  switch (row.flags) {
    case FLAGS.terminating:
      return `cluster ${name} is being torn down (a down started ${new Date(row.updated_at).toISOString()}); launch again once it is gone, or use another name (-c)`;
    case FLAGS.terminationUnconfirmed:
    case FLAGS.downUnconfirmed:
      return `cluster ${name} is half torn down (${row.flags}); run "skydeck down ${name}" to finish, then launch again`;
    default:
      return undefined;
  }
}

export function needsTeardown(row: ClusterRecord): boolean {
  return row.flags === FLAGS.terminating || row.flags === FLAGS.terminationUnconfirmed;
}

export function needsStop(row: ClusterRecord): boolean {
  return row.flags === FLAGS.stopping || row.flags === FLAGS.stopUnconfirmed;
}
