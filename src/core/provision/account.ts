import type { ClusterRecord } from '../state';
import type { ProvisionEnv } from './env';
import { callWithRetry, describeFailure, type CallFailureKind } from './call';
import { refOf } from './handle';
import { saveRow } from './rows';

export type AccountCheck = { ok: true; row: ClusterRecord } | { ok: false; kind: CallFailureKind; message: string };

/**
 * Makes sure a provider row says which account it lives in before anyone concludes from an
 * empty answer (leak invariant 7). Rows written before accounts were recorded have none:
 * such a row adopts the current account only if its uid's instances are really found there
 * (any status); an empty answer there proves nothing (the cluster may live in the account
 * the user switched away from), so it is "unknown" and the row is kept as it is.
 */
export async function settleAccount(env: ProvisionEnv, row: ClusterRecord): Promise<AccountCheck> {
  const identity = env.provider.identity?.bind(env.provider);
  if (row.account || !identity) return { ok: true, row };
  const retry = { clock: env.clock, retries: env.timing.transientRetries, backoffMs: env.timing.backoffMs };
  const cloud = env.provider.cloud;
  const id = await callWithRetry(() => identity(row.region ?? undefined), retry);
  if (!id.ok) return { ok: false, kind: id.kind, message: `unknown — the ${cloud} account cannot be determined (${describeFailure(id)}), and this cluster has none recorded` };
  const q = await callWithRetry(() => env.provider.queryInstances({ ...refOf(row), account: id.value }), retry);
  if (!q.ok) return { ok: false, kind: q.kind, message: q.message };
  if (q.value.length === 0) {
    return {
      ok: false, kind: 'auth',
      message: `unknown — this cluster was recorded before Skydeck kept its ${cloud} account, and credentials point at ${id.value}, where none of its instances is listed; ` +
        `switch to the account it was launched in and refresh, or "down --purge" it if it is really gone`,
    };
  }
  const saved = await saveRow(env, row, { account: id.value }, { kind: 'account-adopted', message: `instances of ${row.uid} found in ${cloud} ${id.value}; recorded as its account` });
  return saved ? { ok: true, row: saved } : { ok: false, kind: 'transient', message: 'the cluster changed while its account was checked' };
}
