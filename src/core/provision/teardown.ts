import type { ClusterRecord } from '../state';
import type { ProvisionEnv } from './env';
import { call, callWithRetry, describeFailure } from './call';
import { FLAGS, providerHandle, refOf } from './handle';
import { seenBefore } from './named';
import { confirmGoal, describeProof, type Proof } from './proof';
import { currentRow, deleteAfterProof, saveRow } from './rows';

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
  await endUnseenById(env, row);
  const started = env.clock.now();
  const proof = await confirmGoal(env, row, 'terminated', async () => {
    await call(() => env.provider.terminateInstances(refOf(row)));
    await endUnseenById(env, row);
  });
  const confirmMs = env.clock.now() - started;
  if (proof.confirmed) return { confirmed: true, proof, confirmMs };
  const reason = `termination unconfirmed: ${issued.ok ? describeProof(proof) : describeFailure(issued)}`;
  await saveRow(env, row, { flags: FLAGS.terminationUnconfirmed, last_error: reason }, { kind: 'terminate-unconfirmed', message: reason, data: { pending: proof.pending.map((i) => i.id) } });
  return { confirmed: false, proof, reason, confirmMs };
}

/**
 * Run-call ids no listing has shown are asked to end by id as well: where the cloud's answer
 * names them shutting down (EC2's TerminateInstances), that is proof, kept with the seen ids.
 */
async function endUnseenById(env: ProvisionEnv, row: ClusterRecord): Promise<void> {
  const cur = (await currentRow(env, row)) ?? row;
  const h = providerHandle(cur);
  const seen = seenBefore(cur, h);
  const ids = h.instanceIds.filter((id) => !seen.has(id));
  if (!ids.length) return;
  const r = await call(() => env.provider.terminateInstances(refOf(cur), ids));
  const ending = r.ok && r.value ? r.value.ending.filter((id) => ids.includes(id)) : [];
  if (!ending.length) return;
  await saveRow(env, cur, { handlePatch: { seenIds: [...seen, ...ending] } }, {
    kind: 'terminate', message: `not listed yet, but the cloud answered the terminate of ${ending.join(', ')} with shutting down`,
  });
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
