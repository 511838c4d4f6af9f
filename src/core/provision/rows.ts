import { appendEvent, deleteClusterAfterProof, getCluster, putCluster, type ClusterRecord } from '../state';
import type { ProvisionEnv } from './env';
import { providerHandle, type ProviderHandle } from './handle';
import { recordEnded } from '../cost/history';

export interface RowEvent {
  kind: string;
  message: string;
  data?: unknown;
}

/**
 * Applies `patch` to the cluster row of this uid. With `restore` (the launch loop only) a
 * missing row is written back whole: a concurrent refresh may have removed it between our
 * steps, and instances we are about to create (or just created) must always have an owner.
 * Returns undefined when the row is gone (without `restore`) or the name now belongs to
 * another cluster (another uid); the caller treats that as "stop here".
 */
export async function saveRow(
  env: ProvisionEnv,
  row: ClusterRecord,
  patch: Partial<ClusterRecord> & { handlePatch?: Partial<ProviderHandle> },
  event?: RowEvent,
  restore = false,
): Promise<ClusterRecord | undefined> {
  const { handlePatch, ...fields } = patch;
  return env.store.write((db) => {
    const cur = getCluster(db, row.name);
    if (cur ? cur.uid !== row.uid : !restore) return undefined;
    const base = cur ?? row;
    const handle = handlePatch ? JSON.stringify({ ...providerHandle(base), ...handlePatch }) : base.handle;
    const next: ClusterRecord = { ...base, ...fields, handle, updated_at: env.clock.now() };
    putCluster(db, next);
    if (event) appendEvent(db, { cluster: row.name, ...event, ts: env.clock.now() });
    // Billing follows the status (cost/timeline.ts): each change is logged with its uid.
    if (cur && cur.status !== next.status) {
      appendEvent(db, { cluster: row.name, kind: 'status', message: `${cur.status} -> ${next.status}`, data: { uid: row.uid, from: cur.status, to: next.status }, ts: env.clock.now() });
    }
    return next;
  });
}

/** Reads the row if it still belongs to this uid. */
export function currentRow(env: ProvisionEnv, row: ClusterRecord): Promise<ClusterRecord | undefined> {
  return env.store.read((db) => {
    const cur = getCluster(db, row.name);
    return cur && cur.uid === row.uid ? cur : undefined;
  });
}

/**
 * Deletes the row after proof (leak invariant 2). With `unchangedSince`, only if the row is
 * exactly as it was when the proof began: a launch that wrote a new intent meanwhile wins.
 */
export async function deleteAfterProof(env: ProvisionEnv, row: ClusterRecord, event: RowEvent, unchangedSince?: ClusterRecord): Promise<boolean> {
  return env.store.write((db) => {
    const cur = getCluster(db, row.name);
    if (!cur || cur.uid !== row.uid) return false;
    if (unchangedSince && JSON.stringify(cur) !== JSON.stringify(unchangedSince)) return false;
    appendEvent(db, { cluster: row.name, ...event, ts: env.clock.now() });
    recordEnded(db, cur, env.clock.now());
    return deleteClusterAfterProof(db, row.uid);
  });
}
