import { randomUUID } from 'node:crypto';
import { getCluster, knownWorkspaceId, thisCreator, workspaceId, type ClusterRecord } from '../state';
import type { Placement } from '../clouds/provider';
import type { PortRange } from '../task';
import type { ProvisionEnv } from './env';
import { runAttempt, type Bootstrap, type FailureKind, type StepFailure } from './attempt';
import { describePlacement, expandZones } from './candidates';
import { terminateWithProof } from './teardown';
import { currentRow, deleteAfterProof, saveRow } from './rows';
import { FLAGS } from './handle';
import { claimOwner, releaseOwner } from './owner';
import { callWithRetry, describeFailure } from './call';

/** One provisioning attempt as the user sees it (launch progress, final error). */
export interface AttemptReport {
  placement: Placement;
  outcome: 'up' | 'failed' | 'cancelled';
  /** Set when not up: the provider's error kind as it threw it, or unknown/bootstrap/cancelled. */
  kind?: FailureKind;
  reason?: string;
  /** Whether this attempt's instances were proven terminated before moving on. */
  cleanup: 'confirmed' | 'unconfirmed' | 'not-needed';
}

export interface ProvisionRequest {
  name: string;
  numNodes: number;
  placements: Placement[];
  ports?: PortRange[];
  /** JSON of what was asked for, kept on the row. */
  resources?: string;
  autostop?: { minutes: number | null; down: boolean };
  bootstrap: Bootstrap;
  signal?: AbortSignal;
  onAttempt?(a: AttemptReport): void;
}

export interface ProvisionResult {
  ok: boolean;
  row?: ClusterRecord;
  attempts: AttemptReport[];
  /** Set when not ok: every attempt and why, one per line. */
  error?: string;
  /** The row is kept flagged because an attempt's cleanup could not be proven. */
  flagged?: boolean;
}

/** Errors that another placement of the same cloud will not fix. */
const STOP_KINDS: ReadonlySet<FailureKind> = new Set<FailureKind>(['auth', 'config', 'cancelled']);

/**
 * Launches a new provider cluster: tries each placement in order; a failed attempt's
 * instances are terminated and proven gone before the next one (leak invariant 4). If a
 * cleanup cannot be proven the loop stops and the row stays, flagged, for a retry of down.
 * When every attempt failed and was cleaned up, the row is removed after that proof.
 */
export async function provision(env: ProvisionEnv, req: ProvisionRequest): Promise<ProvisionResult> {
  // Read first: a write (a save, an fsync) only the first time; hundreds of launches at once
  // then record nothing but their intents before the cloud's create.
  const wsId = (await env.store.read((db) => knownWorkspaceId(db))) ?? (await env.store.write((db) => workspaceId(db)));
  const now = env.clock.now();
  const first = req.placements[0];
  const creator = thisCreator();
  let row: ClusterRecord = {
    name: req.name, uid: randomUUID(), provider: env.provider.cloud, region: first?.region ?? null, zone: first?.zone ?? null,
    status: 'INIT', resources: req.resources ?? null, num_nodes: req.numNodes, head_address: null, ssh_user: null,
    ssh_port: null, ssh_key_path: null, handle: null, launched_at: now, updated_at: now, last_error: null,
    autostop_minutes: req.autostop?.minutes ?? null, autostop_down: req.autostop?.down ? 1 : 0, flags: null,
    created_by_user: creator.user, created_by_machine: creator.machine,
    account: null,
  };
  const taken = await env.store.read((db) => getCluster(db, req.name));
  if (taken) return { ok: false, attempts: [], error: `cluster ${req.name} already exists (${taken.status})` };
  // Leak invariant 7: the intent names the account, so every later look asks that account.
  const identity = env.provider.identity?.bind(env.provider);
  if (identity) {
    const id = await callWithRetry(() => identity(first?.region), { clock: env.clock, retries: env.timing.transientRetries, backoffMs: env.timing.backoffMs, signal: req.signal });
    if (!id.ok) return { ok: false, attempts: [], error: `could not launch ${req.name}: cannot tell which ${env.provider.cloud} account the credentials point at (${describeFailure(id)})` };
    row.account = id.value;
  }
  // Recorded with the intent so a start-up reconcile can tell this launch, while it runs, from
  // one whose process died or gave up (reconcile.ts).
  const owner = claimOwner();
  row.handle = JSON.stringify({ launchOwner: owner });
  try {
    return await provisionOwned(env, req, row, wsId);
  } finally {
    releaseOwner(owner);
  }
}

async function provisionOwned(env: ProvisionEnv, req: ProvisionRequest, row: ClusterRecord, wsId: string): Promise<ProvisionResult> {
  const attempts: AttemptReport[] = [];
  const placements = expandZones(env.provider, req.placements);
  let flagged = false;
  let stop = false;
  for (let i = 0; i < placements.length && !stop; i++) {
    const placement = placements[i];
    if (req.signal?.aborted) break;
    const out = await runAttempt(env, {
      row, workspaceId: wsId, placement, numNodes: req.numNodes, ports: req.ports ?? [], bootstrap: req.bootstrap, signal: req.signal, resume: false,
    });
    // A cancel that came while the last step ran still wins: nobody will use this cluster.
    if (out.ok && !req.signal?.aborted) {
      const report: AttemptReport = { placement, outcome: 'up', cleanup: 'not-needed' };
      attempts.push(report);
      tell(env, req, report);
      return { ok: true, row: out.row, attempts };
    }
    const failed: StepFailure = out.ok ? { ok: false, kind: 'cancelled', message: 'cancelled by the user' } : out;
    row = (await currentRow(env, row)) ?? row;
    const cancelled = failed.kind === 'cancelled';
    env.progress(`${cancelled ? 'Cancelled' : `Attempt on ${describePlacement(placement)} failed (${failed.kind}: ${failed.message})`}; terminating what it created`);
    const cleanup = await terminateWithProof(env, row);
    const report: AttemptReport = {
      placement, outcome: cancelled ? 'cancelled' : 'failed', kind: failed.kind, reason: failed.message + (failed.hint ? ` (${failed.hint})` : ''),
      cleanup: cleanup.confirmed ? 'confirmed' : 'unconfirmed',
    };
    attempts.push(report);
    tell(env, req, report);
    await saveRow(env, row, { flags: cleanup.confirmed ? null : FLAGS.terminationUnconfirmed, last_error: `${report.kind}: ${report.reason}` }, {
      kind: 'attempt-failed', message: `${describePlacement(placement)}: ${report.kind}: ${report.reason}; cleanup ${report.cleanup}`, data: report,
    });
    if (!cleanup.confirmed) flagged = true;
    stop = flagged || STOP_KINDS.has(failed.kind);
  }
  const error = summarize(req.name, attempts, placements.length, flagged);
  if (!flagged) {
    const cur = await currentRow(env, row);
    if (cur) await deleteAfterProof(env, cur, { kind: 'launch-failed', message: error });
  }
  return { ok: false, attempts, error, flagged, row: flagged ? row : undefined };
}

/** The caller's callback must not end the loop (instances may already exist): a throw is logged, not raised. */
function tell(env: ProvisionEnv, req: ProvisionRequest, a: AttemptReport): void {
  try {
    req.onAttempt?.(a);
  } catch (e) {
    env.log(`attempt report failed: ${e instanceof Error ? e.message : String(e)}`);
  }
}

function summarize(name: string, attempts: AttemptReport[], total: number, flagged: boolean): string {
  const lines = attempts.map((a, i) => `  ${i + 1}. ${describePlacement(a.placement)}: ${a.outcome === 'cancelled' ? 'cancelled' : `${a.kind}: ${a.reason}`}` +
    (a.cleanup === 'unconfirmed' ? ' — its instances could not be proven terminated' : ''));
  const head = attempts.length === 0 ? `could not launch ${name}: no placement to try` : `could not launch ${name} (${attempts.length} of ${total} placement(s) tried):`;
  const tail = flagged ? `\nThe cluster is kept and flagged "termination unconfirmed": run "skydeck down ${name}" to retry.` : '';
  return [head, ...lines].join('\n') + tail;
}
