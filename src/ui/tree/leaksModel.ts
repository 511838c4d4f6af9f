import type { LeakedIdentity, LeakedInstance, SweepResult } from '../../core/provision';
import { unknownPartLabel } from '../../core/ops/leaksSummary';

/** The last sweep as the view keeps it. */
export interface LeakSweep extends SweepResult {
  workspaceId: string;
}

/** What the "Leaked instances" node shows under it, in order; the provider draws one node class per kind. */
export type LeakEntry =
  | { kind: 'leak'; leak: LeakedInstance; otherWorkspace: boolean }
  | { kind: 'other-workspaces'; leaks: readonly LeakedInstance[] }
  /** A per-cluster identity (AWS bucket role) no row owns: free, but still a grant on buckets. */
  | { kind: 'identity'; identity: LeakedIdentity }
  /** A cloud, account or region the sweep could not list: `label` names it ("aws eu-west-1 (account …)"). */
  | { kind: 'leak-error'; cloud: string; label: string; message: string };

/**
 * The result of the last leak sweep, for the Clusters view (no `vscode`: unit-tested in Node).
 * Nothing is shown until a sweep ran and found something; a cloud whose listing failed is shown
 * too, because its strays are unknown, not absent.
 */
export class LeaksModel {
  private sweep: LeakSweep | undefined;

  constructor(private readonly changed: () => void) {}

  set(sweep: LeakSweep): void {
    this.sweep = {
      ...sweep, thisWorkspace: [...sweep.thisWorkspace], otherWorkspaces: [...sweep.otherWorkspaces], errors: [...sweep.errors],
      strayIdentities: [...(sweep.strayIdentities ?? [])],
    };
    this.changed();
  }

  clear(): void {
    this.sweep = undefined;
    this.changed();
  }

  /** Drops one instance once its termination is confirmed; false if it was not listed. */
  remove(leak: Pick<LeakedInstance, 'cloud' | 'instance'>): boolean {
    if (!this.sweep) return false;
    const same = (l: LeakedInstance) => l.cloud === leak.cloud && l.instance.id === leak.instance.id;
    const before = this.count;
    this.sweep.thisWorkspace = this.sweep.thisWorkspace.filter((l) => !same(l));
    this.sweep.otherWorkspaces = this.sweep.otherWorkspaces.filter((l) => !same(l));
    if (this.count === before) return false;
    this.changed();
    return true;
  }

  /** Drops one identity once its deletion is proved; false if it was not listed. */
  removeIdentity(id: Pick<LeakedIdentity, 'cloud' | 'name'>): boolean {
    const list = this.sweep?.strayIdentities ?? [];
    const kept = list.filter((i) => !(i.cloud === id.cloud && i.name === id.name));
    if (kept.length === list.length) return false;
    this.sweep!.strayIdentities = kept;
    this.changed();
    return true;
  }

  /** Stray identities listed (any workspace: they carry no cost, only a grant). */
  identities(): LeakedIdentity[] {
    return [...(this.sweep?.strayIdentities ?? [])];
  }

  /** Instances listed, both workspaces. */
  get count(): number {
    return this.sweep ? this.sweep.thisWorkspace.length + this.sweep.otherWorkspaces.length : 0;
  }

  /** The group node appears only when the sweep found instances or could not list a cloud. */
  get visible(): boolean {
    return this.count > 0 || (this.sweep?.errors.length ?? 0) > 0 || this.identities().length > 0;
  }

  /** "3 · 1 other workspace · unknown: aws eu-west-1": the group node's description. */
  get summary(): string {
    if (!this.sweep) return '';
    const parts = [`${this.count}`];
    if (this.sweep.otherWorkspaces.length) parts.push(`${this.sweep.otherWorkspaces.length} other workspace${this.sweep.otherWorkspaces.length > 1 ? 's' : ''}`);
    const ids = this.identities().length;
    if (ids) parts.push(`${ids} identit${ids > 1 ? 'ies' : 'y'}`);
    if (this.sweep.errors.length) parts.push(`unknown: ${[...new Set(this.sweep.errors.map(unknownPartLabel))].join(', ')}`);
    return parts.join(' · ');
  }

  /** This workspace's instances first, then other workspaces' in a section, then stray identities, then sweep errors. */
  entries(): LeakEntry[] {
    if (!this.sweep) return [];
    const out: LeakEntry[] = this.sweep.thisWorkspace.map((leak) => ({ kind: 'leak' as const, leak, otherWorkspace: false }));
    if (this.sweep.otherWorkspaces.length) out.push({ kind: 'other-workspaces', leaks: this.sweep.otherWorkspaces });
    for (const identity of this.identities()) out.push({ kind: 'identity', identity });
    for (const e of this.sweep.errors) out.push({ kind: 'leak-error', cloud: e.cloud, label: unknownPartLabel(e), message: e.message });
    return out;
  }

  /** Every listed instance, for a palette pick. */
  instances(): { leak: LeakedInstance; otherWorkspace: boolean }[] {
    if (!this.sweep) return [];
    return [
      ...this.sweep.thisWorkspace.map((leak) => ({ leak, otherWorkspace: false })),
      ...this.sweep.otherWorkspaces.map((leak) => ({ leak, otherWorkspace: true })),
    ];
  }

  /** The section's children. */
  otherEntries(): LeakEntry[] {
    return (this.sweep?.otherWorkspaces ?? []).map((leak) => ({ kind: 'leak' as const, leak, otherWorkspace: true }));
  }
}

/** Label of an instance node: cloud and instance id, which is what the cloud console shows. */
export function leakLabel(leak: LeakedInstance): string {
  return `${leak.cloud} ${leak.instance.id}`;
}

/** "cluster hello · 2h 5m · ~$1.23 so far" (+ "· workspace ab12…" for another workspace's). */
export function leakDescription(leak: LeakedInstance, otherWorkspace: boolean): string {
  return [
    `cluster ${leak.cluster}`,
    formatAge(leak.ageMs),
    leak.costSoFar !== undefined ? `~${formatUsd(leak.costSoFar)} so far` : '',
    otherWorkspace ? `workspace ${shortId(leak.workspace)}` : '',
  ].filter(Boolean).join(' · ');
}

/** Plain-text tooltip lines: everything needed to find the instance in the cloud console. */
export function leakTooltip(leak: LeakedInstance): string {
  const i = leak.instance;
  return [
    `${leak.cloud} instance ${i.id} (${i.status})`,
    `cluster: ${leak.cluster} (uid ${leak.uid})`,
    `workspace: ${leak.workspace}`,
    [i.region, i.zone].filter(Boolean).join(' / '),
    i.instanceType ? `type: ${i.instanceType}` : '',
    i.publicIp || i.privateIp ? `ip: ${[i.publicIp, i.privateIp].filter(Boolean).join(', ')}` : '',
    `running for ${formatAge(leak.ageMs)}`,
    i.costPerHour !== undefined ? `~${formatUsd(i.costPerHour)}/h, ~${formatUsd(leak.costSoFar ?? 0)} so far` : 'price unknown',
  ].filter(Boolean).join('\n');
}

/** Tooltip of an identity node: what it is, whose, and what deleting it needs. */
export function identityTooltip(id: LeakedIdentity): string {
  return [
    `${id.cloud} ${id.kind} ${id.name}${id.account ? ` (account ${id.account})` : ''}`,
    `cluster: ${id.cluster} (uid ${id.uid}), which no cluster row owns`,
    `workspace: ${id.workspace}`,
    'It costs nothing but still grants its buckets; Delete removes it (and its instance profile) once the cluster\'s instances are terminated.',
  ].join('\n');
}

export function formatAge(ms: number): string {
  const mins = Math.floor(ms / 60_000);
  if (mins < 1) return `${Math.max(0, Math.round(ms / 1000))}s`;
  const d = Math.floor(mins / 1440);
  const h = Math.floor((mins % 1440) / 60);
  const m = mins % 60;
  return d ? `${d}d ${h}h` : h ? `${h}h ${m}m` : `${m}m`;
}

export function formatUsd(usd: number): string {
  return usd < 0.01 ? '$0.00' : `$${usd.toFixed(2)}`;
}

function shortId(id: string): string {
  return id.length > 8 ? `${id.slice(0, 8)}…` : id;
}
