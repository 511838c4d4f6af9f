import type { ClusterRecord } from '../../core/state';

/**
 * What a row's `flags` (src/core/provision FLAGS, plus 'down-unconfirmed' from a local/ssh
 * down) means for the Clusters view. No `vscode` here, so the mapping is unit-tested.
 * `token` is appended to the node's contextValue; menus match it (Retry Down on ":down-unconfirmed").
 */
export interface FlagState {
  token: 'down-unconfirmed' | 'stop-unconfirmed' | 'terminating' | 'stopping' | 'flagged';
  /** Short, for the node's description. */
  label: string;
  /** A sentence for the tooltip: what happened and what to do. */
  hint: string;
  /** Unconfirmed states need the user (a warning icon); the in-progress ones are finished by reconcile. */
  needsAction: boolean;
}

export function flagState(row: Pick<ClusterRecord, 'flags' | 'name'>): FlagState | undefined {
  if (!row.flags) return undefined;
  switch (row.flags) {
    case 'termination-unconfirmed':
    case 'down-unconfirmed':
      return { token: 'down-unconfirmed', label: 'teardown unconfirmed', needsAction: true,
        hint: `Tear-down of ${row.name} was not confirmed, so it is kept: its machines may still run (and cost). Use Retry Down.` };
    case 'stop-unconfirmed':
      return { token: 'stop-unconfirmed', label: 'stop unconfirmed', needsAction: true,
        hint: `Stopping ${row.name} was not confirmed: its instances may still run. Stop it again, or Retry Down.` };
    case 'terminating':
      return { token: 'terminating', label: 'tearing down', needsAction: false,
        hint: `A tear-down of ${row.name} started and did not finish; Skydeck finishes it on start-up, or use Retry Down.` };
    case 'stopping':
      return { token: 'stopping', label: 'stopping', needsAction: false,
        hint: `A stop of ${row.name} started and did not finish; Skydeck finishes it on start-up.` };
    default:
      return { token: 'flagged', label: row.flags, needsAction: true, hint: `${row.name} is flagged "${row.flags}".` };
  }
}

/** Clouds with a provider can stop and start; local and ssh machines cannot (ops say so too). */
export function canStop(row: Pick<ClusterRecord, 'provider'>): boolean {
  return row.provider !== 'local' && row.provider !== 'ssh';
}

/**
 * `cluster:<status>:<local|remote>[:stoppable][:<flag token>]`. The first three tokens keep their
 * meaning (menus match /^cluster:up/ and /^cluster:up:remote/); later ones only add.
 */
export function clusterContextValue(row: Pick<ClusterRecord, 'status' | 'provider' | 'flags' | 'name'>): string {
  const parts = ['cluster', row.status.toLowerCase(), row.provider === 'local' ? 'local' : 'remote'];
  if (canStop(row)) parts.push('stoppable');
  const flag = flagState(row);
  if (flag) parts.push(flag.token);
  return parts.join(':');
}
