import type { ClusterRecord } from '../state';
import type { InstanceInfo, InstanceStatus } from '../clouds/provider';
import type { ProvisionEnv } from './env';
import { callWithRetry, type CallFailureKind } from './call';
import { graceStart, providerHandle, refOf, type ProviderHandle } from './handle';
import { settleAccount } from './account';
import { seenBefore, unlistedNamed, describeUnlisted } from './named';
import { currentRow, saveRow } from './rows';

export type Goal = 'terminated' | 'stopped';

export interface Proof {
  confirmed: boolean;
  /** Instances not yet in the goal state at the last answer. */
  pending: InstanceInfo[];
  /** Ids recorded on the row that the provider did not list at the last look. */
  unseen: string[];
  /** Of those, the ones the run call named that no listing ever showed: they hold the row (named.ts). */
  unlisted?: string[];
  queries: number;
  /** The last query error, if the last query failed. */
  error?: string;
  /** Its kind: auth/config errors end the polling, as asking again cannot fix them. */
  errorKind?: CallFailureKind;
}

export function reached(s: InstanceStatus, goal: Goal): boolean {
  if (goal === 'terminated') return s === 'terminating' || s === 'terminated';
  // Listed as stopping counts (the stop was accepted); "unknown" proves nothing either way.
  return s === 'stopping' || s === 'stopped' || s === 'terminating' || s === 'terminated';
}

/**
 * One look at the cluster: is every instance of its uid in the goal state, as far as can be
 * known? An instance we created but the provider does not list yet is not proof of anything
 * until the launch grace window since the last run call has passed (leak invariant 3), and
 * one the run call named is not gone while no listing has ever shown it (named.ts); an
 * error is never an empty list.
 */
export async function lookOnce(env: ProvisionEnv, row: ClusterRecord, goal: Goal): Promise<Proof> {
  const settled = await settleAccount(env, row);
  if (!settled.ok) return { confirmed: false, pending: [], unseen: [], queries: 1, error: settled.message, errorKind: settled.kind };
  row = settled.row;
  const q = await callWithRetry(() => env.provider.queryInstances(refOf(row)), {
    clock: env.clock, retries: env.timing.transientRetries, backoffMs: env.timing.backoffMs,
  });
  if (!q.ok) return { confirmed: false, pending: [], unseen: [], queries: 1, error: q.message, errorKind: q.kind };
  const h = providerHandle(row);
  const seen = new Set(q.value.map((i) => i.id));
  const pending = q.value.filter((i) => !reached(i.status, goal));
  const unseen = h.instanceIds.filter((id) => !seen.has(id));
  const young = env.clock.now() - graceStart(h) < env.timing.launchGraceMs;
  const unknownRun = h.runInFlight && young;
  const known = await recordSeen(env, row, h, seen);
  const unlisted = unlistedNamed(env, h, seen, known);
  const confirmed = pending.length === 0 && !unknownRun && (unseen.length === 0 || !young) && unlisted.length === 0;
  return { confirmed, pending, unseen, ...(unlisted.length ? { unlisted } : {}), queries: 1 };
}

/**
 * Which named ids some listing has shown, this one included; kept on the row (read afresh:
 * the caller's copy is from before earlier looks), so a later look knows they existed.
 */
async function recordSeen(env: ProvisionEnv, row: ClusterRecord, h: ProviderHandle, listed: Set<string>): Promise<Set<string>> {
  const cur = (await currentRow(env, row)) ?? row;
  const before = seenBefore(cur, providerHandle(cur));
  const known = new Set([...before, ...h.instanceIds.filter((id) => listed.has(id))]);
  if (known.size > before.size) await saveRow(env, cur, { handlePatch: { seenIds: [...known] } });
  return known;
}

/**
 * Polls until the goal is proven or the bound passes; re-issues the terminate/stop call when
 * instances stay live (clouds have accepted such calls and done nothing). Cloud-agnostic:
 * only queryInstances and the re-issue callback are used.
 */
export async function confirmGoal(
  env: ProvisionEnv,
  row: ClusterRecord,
  goal: Goal,
  reissue: () => Promise<unknown>,
): Promise<Proof> {
  const start = env.clock.now();
  let lastIssue = start;
  let queries = 0;
  let proof = await lookOnce(env, row, goal);
  queries++;
  // Ids live at the first look were covered by the caller's call; ones that show up later
  // (created invisible) get a call at once, the rest again after reissueAfterMs.
  const covered = new Set(proof.pending.map((i) => i.id));
  while (!proof.confirmed && env.clock.now() - start < env.timing.confirmTimeoutMs && !hopeless(proof)) {
    const fresh = proof.pending.filter((i) => !covered.has(i.id));
    // Ids the run call named and no listing shows are asked again too (by id, teardown.ts).
    const stale = proof.pending.length > 0 || (proof.unlisted?.length ?? 0) > 0;
    if (fresh.length > 0 || (stale && env.clock.now() - lastIssue >= env.timing.reissueAfterMs)) {
      env.log(`${row.name}: ${[...proof.pending.map((i) => `${i.id} ${i.status}`), ...(proof.unlisted ?? []).map((id) => `${id} not listed`)].join(', ')}; asking again`);
      await reissue();
      proof.pending.forEach((i) => covered.add(i.id));
      lastIssue = env.clock.now();
    }
    await env.clock.sleep(env.timing.pollMs);
    proof = await lookOnce(env, row, goal);
    queries++;
  }
  return { ...proof, queries };
}

/** Credentials or configuration are missing: polling until the bound would only delay the answer. */
function hopeless(p: Proof): boolean {
  return p.errorKind === 'auth' || p.errorKind === 'config';
}

export function describeProof(p: Proof): string {
  if (p.confirmed) return 'confirmed';
  const parts: string[] = [];
  if (p.pending.length) parts.push(`still ${p.pending.map((i) => `${i.id} ${i.status}`).join(', ')}`);
  const held = new Set(p.unlisted ?? []);
  const invisible = p.unseen.filter((id) => !held.has(id));
  if (invisible.length) parts.push(`not yet visible: ${invisible.join(', ')}`);
  if (held.size) parts.push(describeUnlisted([...held], 'run down again later'));
  if (p.error) parts.push(`could not check with the cloud: ${p.error}`);
  return parts.join('; ') || 'the last launch call has not been answered';
}
