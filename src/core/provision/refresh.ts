import type { ClusterRecord } from '../state';
import { isLive, type InstanceInfo } from '../clouds/provider';
import type { ProvisionEnv } from './env';
import { callWithRetry } from './call';
import { graceStart, providerHandle, refOf } from './handle';
import { currentRow, deleteAfterProof, saveRow } from './rows';
import { settleAccount } from './account';
import { describeUnlisted, seenBefore, unlistedNamed } from './named';
import { markHeadLost } from './headLost';

export interface RefreshOutcome {
  name: string;
  /** What refresh did: nothing, changed the status, or removed the row after proof. */
  action: 'unchanged' | 'updated' | 'removed' | 'error';
  row?: ClusterRecord;
  instances?: InstanceInfo[];
  message?: string;
}

/**
 * One cluster against the provider, one query per look. An error changes nothing. No live
 * instance: a young INIT cluster is looked at again after a delay until its grace window
 * passes (invariant 3); an older one is removed, but only if its row did not change while
 * we looked (a launch that wrote a new intent meanwhile wins). `waitYoung: false` skips the
 * wait and leaves a young row as it is.
 */
export async function refreshOne(env: ProvisionEnv, snapshot: ClusterRecord, opts: { waitYoung?: boolean } = {}): Promise<RefreshOutcome> {
  const name = snapshot.name;
  // An empty answer from the wrong account is not "gone": the row must say where it lives.
  const settled = await settleAccount(env, snapshot);
  if (!settled.ok) return { name, action: 'error', row: snapshot, message: `${settled.kind}: ${settled.message}` };
  snapshot = settled.row;
  for (;;) {
    const q = await callWithRetry(() => env.provider.queryInstances(refOf(snapshot)), {
      clock: env.clock, retries: env.timing.transientRetries, backoffMs: env.timing.backoffMs,
    });
    if (!q.ok) return { name, action: 'error', row: snapshot, message: `${q.kind}: ${q.message}` };
    const live = q.value.filter((i) => isLive(i.status));
    if (live.length > 0) return applyLive(env, snapshot, q.value, live);
    const h = providerHandle(snapshot);
    const since = graceStart(h);
    const young = env.clock.now() - since < env.timing.launchGraceMs;
    // A UI poll may not want to wait: it then leaves the young row alone (never deletes it).
    if (young && snapshot.status === 'INIT' && opts.waitYoung === false) {
      return { name, action: 'unchanged', row: snapshot, instances: q.value, message: 'launching; no instance visible yet' };
    }
    if (young && snapshot.status === 'INIT') {
      await env.clock.sleep(Math.min(env.timing.pollMs * 5, since + env.timing.launchGraceMs - env.clock.now() + 1));
      const cur = await currentRow(env, snapshot);
      if (!cur) return { name, action: 'unchanged', message: 'removed by another operation' };
      snapshot = cur;
      continue;
    }
    // An UP row's instances were all listed running, so none listed now means they were
    // deleted (a pod deleted outside Skydeck, a console terminate): within the grace that is no
    // proof to remove the row, but it is never UP any more.
    if (young && snapshot.status === 'UP' && !snapshot.flags) {
      const why = snapshot.autostop_down === 1 ? 'autodown, or deleted outside Skydeck' : 'deleted outside Skydeck?';
      const message = `head instance ${h.headId ?? h.instanceIds[0] ?? '?'} is gone (${why})`;
      const saved = await markHeadLost(env, snapshot, message, 'gone');
      return { name, action: saved ? 'updated' : 'unchanged', row: saved ?? snapshot, instances: q.value, message };
    }
    if (young) return { name, action: 'unchanged', row: snapshot, instances: q.value };
    // Instances the run call named are not gone because no listing shows them: listings can
    // lag past the grace window. The row stays until one shows them (named.ts, as down).
    const named = unlistedNamed(env, h, new Set(q.value.map((i) => i.id)), seenBefore(snapshot, h));
    if (named.length) {
      const message = describeUnlisted(named, 'refresh or down it later');
      const saved = snapshot.last_error === message ? snapshot : await saveRow(env, snapshot, { last_error: message }, { kind: 'refresh', message });
      return { name, action: 'unchanged', row: saved ?? snapshot, instances: q.value, message };
    }
    const message = `no live instance of ${snapshot.uid} (${q.value.length} listed, all terminated) and older than the launch grace window`;
    const removed = await deleteAfterProof(env, snapshot, { kind: 'refresh-removed', message }, snapshot);
    if (removed) await cleanUpAfterGone(env, snapshot);
    return removed ? { name, action: 'removed', message } : { name, action: 'unchanged', message: 'changed while refreshing; left as is' };
  }
}

/**
 * A cluster that ended without Skydeck's down (autodown, the console) leaves its per-cluster
 * network rule (AWS security group, GCP firewall rule): providers delete those in a terminate
 * call once nothing of the uid is left, so one such call with nothing to end does it.
 */
async function cleanUpAfterGone(env: ProvisionEnv, row: ClusterRecord): Promise<void> {
  try {
    await env.provider.terminateInstances(refOf(row));
  } catch (e) {
    env.log(`${row.name}: could not clean up its network rules: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/** Some instances live: derive the status; an UP cluster whose head is gone becomes INIT. */
async function applyLive(env: ProvisionEnv, row: ClusterRecord, all: InstanceInfo[], live: InstanceInfo[]): Promise<RefreshOutcome> {
  const h = providerHandle(row);
  const head = h.headId ? all.find((i) => i.id === h.headId) : undefined;
  let patch: Partial<ClusterRecord> | undefined;
  let reason = '';
  if (row.flags) return { name: row.name, action: 'unchanged', row, instances: all };
  if (row.status === 'UP') {
    if (live.every((i) => i.status === 'stopped' || i.status === 'stopping')) {
      patch = { status: 'STOPPED' };
      reason = 'every instance is stopped (stopped outside Skydeck or by autostop)';
    } else if (h.headId && (!head || head.status !== 'running')) {
      const message = `head instance ${h.headId} is ${head?.status ?? 'gone'}`;
      const saved = await markHeadLost(env, row, message, head?.status ?? 'gone');
      return { name: row.name, action: saved ? 'updated' : 'unchanged', row: saved ?? row, instances: all, message };
    } else if (live.length < row.num_nodes || live.some((i) => i.status !== 'running')) {
      patch = { status: 'INIT', last_error: `${live.filter((i) => i.status === 'running').length} of ${row.num_nodes} instance(s) running` };
      reason = patch.last_error!;
    }
  } else if (row.status === 'STOPPED' && live.some((i) => i.status === 'running' || i.status === 'pending')) {
    patch = { status: 'INIT', last_error: 'instances were started outside Skydeck; start or launch it to use it' };
    reason = patch.last_error!;
  } else if (row.status === 'STOPPED' && live.some((i) => i.status === 'unknown')) {
    // Not proof of stopped (it may be running and billed): say so rather than keep STOPPED.
    patch = { status: 'INIT', last_error: `instance ${live.find((i) => i.status === 'unknown')!.id} is in a status the provider does not know; stop or down it` };
    reason = patch.last_error!;
  }
  if (!patch) return { name: row.name, action: 'unchanged', row, instances: all };
  const saved = await saveRow(env, row, patch, { kind: 'refresh', message: reason });
  return { name: row.name, action: saved ? 'updated' : 'unchanged', row: saved ?? row, instances: all, message: reason };
}
