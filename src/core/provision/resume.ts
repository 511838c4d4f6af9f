import type { ClusterRecord } from '../state';
import type { PortRange } from '../task';
import type { ProvisionEnv } from './env';
import { runAttempt, type Bootstrap } from './attempt';
import { callWithRetry } from './call';
import { providerHandle, refOf } from './handle';
import { saveRow } from './rows';
import { workspaceId } from '../state';
import { settleAccount } from './account';

export interface ResumeResult {
  ok: boolean;
  row?: ClusterRecord;
  error?: string;
}

/**
 * Starts a stopped (or half-started) cluster in its own placement. A failure never
 * terminates anything and never removes the row: the stopped disks are the user's data.
 * The row ends STOPPED (or INIT if some instances run) with the error.
 */
export async function resumeCluster(
  env: ProvisionEnv,
  row: ClusterRecord,
  opts: { bootstrap: Bootstrap; ports?: PortRange[]; signal?: AbortSignal },
): Promise<ResumeResult> {
  const wsId = await env.store.write((db) => workspaceId(db));
  // A row from before accounts were recorded must find its instances first, or a start
  // would create new ones in whatever account the credentials point at now.
  const settled = await settleAccount(env, row);
  if (!settled.ok) return { ok: false, row, error: `could not start ${row.name}: ${settled.message}` };
  row = settled.row;
  const h = providerHandle(row);
  await untilNotStopping(env, row, opts.signal);
  const out = await runAttempt(env, {
    row, workspaceId: wsId, placement: h.placement, numNodes: row.num_nodes, ports: opts.ports ?? [],
    bootstrap: opts.bootstrap, signal: opts.signal, resume: true,
  });
  if (out.ok) return { ok: true, row: out.row };
  const error = `could not start ${row.name}: ${out.kind}: ${out.message}`;
  const q = await callWithRetry(() => env.provider.queryInstances(refOf(row)), {
    clock: env.clock, retries: env.timing.transientRetries, backoffMs: env.timing.backoffMs,
  });
  // An instance in a status the provider cannot map may be running: not proof of stopped.
  const running = q.ok ? q.value.filter((i) => i.status === 'running' || i.status === 'pending' || i.status === 'unknown') : [];
  const status = q.ok && running.length === 0 ? 'STOPPED' : 'INIT';
  const note = running.length ? `; ${running.length} instance(s) are running: start again, stop or down` : '';
  const saved = await saveRow(env, row, { status, last_error: error + note }, { kind: 'start-failed', message: error + note });
  return { ok: false, row: saved, error: error + note };
}

/** A stop is proven at "stopping"; clouds refuse to start such instances, so wait (bounded). */
async function untilNotStopping(env: ProvisionEnv, row: ClusterRecord, signal?: AbortSignal): Promise<void> {
  const end = env.clock.now() + env.timing.confirmTimeoutMs;
  while (!signal?.aborted && env.clock.now() < end) {
    const q = await callWithRetry(() => env.provider.queryInstances(refOf(row)), {
      clock: env.clock, retries: env.timing.transientRetries, backoffMs: env.timing.backoffMs, signal,
    });
    if (!q.ok || !q.value.some((i) => i.status === 'stopping')) return;
    await env.clock.sleep(env.timing.pollMs, signal);
  }
}
