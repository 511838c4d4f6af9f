// The "Managed jobs" section's data (no `vscode`: unit-tested in Node), reloaded with the
// clusters. Imports from the core are type-only: this file is part of the activation bundle.
import type { ManagedJobView, ManagedJobsListing } from '../../core/managed/jobViews';
import type { ClusterRate } from '../../core/managed/jobCost';
import type { ManagedStatus } from '../../core/managed/states';

export type ManagedEntry =
  | { kind: 'managed-job'; view: ManagedJobView }
  /** The listing failed, or a row is damaged: shown, never hidden. */
  | { kind: 'managed-error'; message: string };

/** Each status in words, for the description (the icon says it too, but not to everyone). */
export const STATUS_WORDS: Record<ManagedStatus, string> = {
  PENDING: 'pending', STARTING: 'starting', RUNNING: 'running', RECOVERING: 'recovering',
  SUCCEEDED: 'succeeded', FAILED: 'failed', FAILED_SETUP: 'failed in setup', FAILED_NO_RESOURCE: 'failed: no resources',
  FAILED_CONTROLLER: 'failed: controller error', CANCELLING: 'cancelling', CANCELLED: 'cancelled',
};

const ENDED = new Set<ManagedStatus>(['SUCCEEDED', 'FAILED', 'FAILED_SETUP', 'FAILED_NO_RESOURCE', 'FAILED_CONTROLLER', 'CANCELLED']);

export function isEnded(s: ManagedStatus): boolean {
  return ENDED.has(s);
}

export class ManagedJobsModel {
  private listing: ManagedJobsListing = { jobs: [], refused: [] };
  private error: string | undefined;

  set(listing: ManagedJobsListing): void {
    this.listing = { jobs: [...listing.jobs].sort((a, b) => b.job.id - a.job.id), refused: listing.refused };
    this.error = undefined;
  }

  /** A failed listing keeps the jobs last seen and says why. */
  failed(message: string): void {
    this.error = message;
  }

  /** Hidden until the first managed job (most windows never use them). */
  get visible(): boolean {
    return this.listing.jobs.length > 0 || this.listing.refused.length > 0 || this.error !== undefined;
  }

  /** "3 · 1 running · 1 recovering" (+ "· listing failed"). */
  get summary(): string {
    const parts = [`${this.listing.jobs.length}`];
    for (const s of ['RUNNING', 'RECOVERING', 'STARTING', 'PENDING'] as const) {
      const n = this.listing.jobs.filter((v) => v.job.status === s).length;
      if (n) parts.push(`${n} ${STATUS_WORDS[s]}`);
    }
    if (this.error !== undefined) parts.push('listing failed');
    return parts.join(' · ');
  }

  job(id: number): ManagedJobView | undefined {
    return this.listing.jobs.find((v) => v.job.id === id);
  }

  get all(): readonly ManagedJobView[] {
    return this.listing.jobs;
  }

  entries(): ManagedEntry[] {
    const out: ManagedEntry[] = this.listing.jobs.map((view) => ({ kind: 'managed-job' as const, view }));
    for (const r of this.listing.refused) out.push({ kind: 'managed-error', message: `managed job ${r.id} is not shown: its row is damaged (${r.problem})` });
    if (this.error !== undefined) out.push({ kind: 'managed-error', message: `listing managed jobs failed: ${this.error}` });
    return out;
  }
}

/** "running · 1 recovery · on train-mj3-2 · 5m 3s · ≈ $0.12 so far" (now: epoch ms). */
export function managedJobDescription(v: ManagedJobView, now: number): string {
  const j = v.job;
  const recov = j.recoveryCount === 1 ? '1 recovery' : `${j.recoveryCount} recoveries`;
  return [
    STATUS_WORDS[j.status] + (j.cancelRequested && !isEnded(j.status) && j.status !== 'CANCELLING' ? ' (cancel requested)' : ''),
    recov,
    j.clusterName ? `on ${j.clusterName}` : 'no cluster',
    j.startedAt ? duration((j.endedAt ?? now) - j.startedAt) : 'not started',
    costText(v.rate, j.startedAt ? (j.endedAt ?? now) - j.startedAt : 0),
  ].join(' · ');
}

/** Plain text: what the row's parts mean, and how the cost is estimated. */
export function managedJobTooltip(v: ManagedJobView): string {
  const j = v.job;
  return [
    `Managed job ${j.id} ${j.name}: ${j.status}`,
    `task ${j.taskIndex + 1} of ${j.tasks.length}; recoveries: ${j.recoveryCount}; restarts after errors: ${j.restartsOnErrors}`,
    j.clusterName ? `cluster: ${j.clusterName}${j.region ? ` (${j.region})` : ''}` : 'no cluster now',
    v.rate.kind === 'priced' ? `cost: an estimate, ${v.rate.what}, over the time since the job started` : `cost: ${v.rate.kind === 'free' ? v.rate.why : `unknown (${v.rate.why})`}`,
    j.lastError ? `last error: ${j.lastError}` : '',
  ].filter(Boolean).join('\n');
}

/** "≈ $1.23 so far", "no cloud charge" or "cost unknown" (never $0 for unknown). */
export function costText(rate: ClusterRate, ms: number): string {
  if (rate.kind === 'free') return 'no cloud charge';
  if (rate.kind === 'unknown') return 'cost unknown';
  const usd = (rate.usdPerHour * Math.max(0, ms)) / 3_600_000;
  return `≈ $${usd < 0.01 ? usd.toFixed(4) : usd.toFixed(2)} so far`;
}

function duration(ms: number): string {
  const secs = Math.max(0, Math.round(ms / 1000));
  const h = Math.floor(secs / 3600);
  const m = Math.floor((secs % 3600) / 60);
  const s = secs % 60;
  return h ? `${h}h ${m}m` : m ? `${m}m ${s}s` : `${s}s`;
}
