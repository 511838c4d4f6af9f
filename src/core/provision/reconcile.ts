import type { ClusterRecord } from '../state';
import { isLive } from '../clouds/provider';
import type { ProvisionEnv } from './env';
import { needsStop, needsTeardown, providerHandle } from './handle';
import { describeOwner, ownerState } from './owner';
import { refreshOne } from './refresh';
import { downWithProof, stopWithProof } from './teardown';
import { saveRow } from './rows';

export interface ReconcileOutcome {
  name: string;
  action: 'ended-launch' | 'finished-down' | 'down-unconfirmed' | 'finished-stop' | 'stop-unconfirmed' | 'adopted' | 'removed' | 'unchanged' | 'error';
  message?: string;
}

/** Rows a previous process may have left mid-way: INIT, or flagged by a teardown or stop. */
export function needsReconcile(row: ClusterRecord): boolean {
  return row.status === 'INIT' || needsTeardown(row) || needsStop(row);
}

/**
 * Crash recovery for one row (run at start-up): finishes an interrupted teardown or stop;
 * terminates a fresh launch whose process is gone (with proof); any other INIT row with live
 * instances keeps them (adopted: owned, with a note saying what to do — e.g. a start that
 * failed half-way: its disks are the user's data); one with none goes through refresh's
 * grace rule.
 */
export async function reconcileOne(env: ProvisionEnv, row: ClusterRecord): Promise<ReconcileOutcome> {
  const name = row.name;
  if (needsTeardown(row)) {
    const r = await downWithProof(env, row);
    return { name, action: r.confirmed ? 'finished-down' : 'down-unconfirmed', message: r.reason };
  }
  if (needsStop(row)) {
    const r = await stopWithProof(env, row);
    return { name, action: r.confirmed ? 'finished-stop' : 'stop-unconfirmed', message: r.reason };
  }
  const launchOwner = row.status === 'INIT' && !row.flags ? providerHandle(row).launchOwner : undefined;
  if (launchOwner) {
    const state = ownerState(launchOwner);
    if (state !== 'dead') return { name, action: 'unchanged', message: `a launch is under way (${describeOwner(launchOwner)})` };
    // A fresh launch whose process died or gave up (a cancel, a crash) is ended, not
    // finished: nobody is there to submit its task, and an idle machine nobody asked to keep
    // bills unseen. Terminated with proof; the row goes only after the proof,
    // else it stays flagged "termination-unconfirmed" for Retry Down.
    const t = await downWithProof(env, row);
    const message = `its launch was interrupted (${describeOwner(launchOwner)}, no longer running)` +
      (t.confirmed ? '; its instances are proven terminated' : `; ${t.reason}`);
    return { name, action: t.confirmed ? 'ended-launch' : 'down-unconfirmed', message };
  }
  const r = await refreshOne(env, row);
  if (r.action === 'removed') return { name, action: 'removed', message: r.message };
  if (r.action === 'error') return { name, action: 'error', message: r.message };
  const live = (r.instances ?? []).filter((i) => isLive(i.status));
  if (row.status === 'INIT' && live.length) {
    const note = `launch was interrupted; ${live.length} instance(s) are ${[...new Set(live.map((i) => i.status))].join('/')}: launch again to finish, or down it`;
    await saveRow(env, r.row ?? row, { last_error: note }, { kind: 'reconcile', message: note });
    return { name, action: 'adopted', message: note };
  }
  return { name, action: 'unchanged' };
}
