import type { ClusterRecord } from '../state';
import type { ProvisionEnv } from './env';
import { call, callWithRetry, describeFailure } from './call';
import { FLAGS, refOf } from './handle';
import { confirmGoal, describeProof, type Proof } from './proof';
import { deleteAfterProof, saveRow } from './rows';

export interface TeardownResult {
  confirmed: boolean;
  proof: Proof;
  /** What the user should read when not confirmed. */
  reason?: string;
  /** Clock ms spent from the terminate call to the proof. */
  confirmMs: number;
}

/**
 * Terminates every instance of the row's uid and waits for proof. The row is flagged
 * "terminating" first so a crash mid-way is finished by reconcile(), and "termination-
 * unconfirmed" if the proof does not come within the bound. The row itself is not deleted.
 */
export async function terminateWithProof(env: ProvisionEnv, row: ClusterRecord): Promise<TeardownResult> {
  await saveRow(env, row, { flags: FLAGS.terminating }, { kind: 'terminate', message: `terminating instances of ${row.uid}` });
  const retry = { clock: env.clock, retries: env.timing.transientRetries, backoffMs: env.timing.backoffMs };
  const issued = await callWithRetry(() => env.provider.terminateInstances(refOf(row)), retry);
  if (!issued.ok) env.log(`${row.name}: terminate failed: ${describeFailure(issued)}; checking what is left`);
  const started = env.clock.now();
  const proof = await confirmGoal(env, row, 'terminated', () => call(() => env.provider.terminateInstances(refOf(row))));
  const confirmMs = env.clock.now() - started;
  if (proof.confirmed) return { confirmed: true, proof, confirmMs };
  const reason = `termination unconfirmed: ${issued.ok ? describeProof(proof) : describeFailure(issued)}`;
  await saveRow(env, row, { flags: FLAGS.terminationUnconfirmed, last_error: reason }, { kind: 'terminate-unconfirmed', message: reason, data: { pending: proof.pending.map((i) => i.id) } });
  return { confirmed: false, proof, reason, confirmMs };
}

/** Down for a provider cluster: terminate, prove, and only then delete the row. */
export async function downWithProof(env: ProvisionEnv, row: ClusterRecord): Promise<TeardownResult & { deleted: boolean }> {
  const t = await terminateWithProof(env, row);
  if (!t.confirmed) return { ...t, deleted: false };
  const deleted = await deleteAfterProof(env, row, {
    kind: 'down', message: `every instance of ${row.uid} is terminating or terminated (${t.proof.queries} queries)`,
  });
  return { ...t, deleted };
}

/** Stop: the same shape with stopping/stopped; the row becomes STOPPED only after proof. */
export async function stopWithProof(env: ProvisionEnv, row: ClusterRecord): Promise<TeardownResult> {
  await saveRow(env, row, { flags: FLAGS.stopping }, { kind: 'stop', message: `stopping instances of ${row.uid}` });
  const retry = { clock: env.clock, retries: env.timing.transientRetries, backoffMs: env.timing.backoffMs };
  const issued = await callWithRetry(() => env.provider.stopInstances(refOf(row)), retry);
  const started = env.clock.now();
  const proof = await confirmGoal(env, row, 'stopped', () => call(() => env.provider.stopInstances(refOf(row))));
  const confirmMs = env.clock.now() - started;
  if (proof.confirmed) {
    await saveRow(env, row, { status: 'STOPPED', flags: null, last_error: null }, { kind: 'stopped', message: 'every instance is stopping or stopped' });
    return { confirmed: true, proof, confirmMs };
  }
  const reason = `stop unconfirmed: ${issued.ok ? describeProof(proof) : describeFailure(issued)}`;
  await saveRow(env, row, { flags: FLAGS.stopUnconfirmed, last_error: reason }, { kind: 'stop-unconfirmed', message: reason });
  return { confirmed: false, proof, reason, confirmMs };
}
