import type { ClusterRecord } from '../state';
import { failJobsOfLostHead } from '../state';
import type { InstanceStatus } from '../clouds/provider';
import type { ProvisionEnv } from './env';
import { saveRow } from './rows';

/** Head states in which no process of it runs any more: its jobs' drivers are dead. */
const DEAD: ReadonlySet<InstanceStatus | 'gone'> = new Set(['gone', 'terminating', 'terminated', 'stopping', 'stopped']);

export function headIsDead(status: InstanceStatus | 'gone'): boolean {
  return DEAD.has(status);
}

/**
 * An UP cluster whose head is no longer running becomes INIT with the reason (never UP: the
 * agent cannot be reached); returns the saved row, undefined if the row changed meanwhile. When the head is dead (deleted, terminated, stopped) the jobs
 * cached for it that had not ended become FAILED_DRIVER: no agent will report their end.
 */
export async function markHeadLost(env: ProvisionEnv, row: ClusterRecord, reason: string, head: InstanceStatus | 'gone'): Promise<ClusterRecord | undefined> {
  const saved = await saveRow(env, row, { status: 'INIT', last_error: reason }, { kind: 'refresh', message: reason });
  if (saved && headIsDead(head)) {
    const failed = await env.store.write((db) => failJobsOfLostHead(db, row.uid, reason, Math.floor(env.clock.now() / 1000)));
    if (failed.length) env.log(`${row.name}: job(s) ${failed.join(', ')} marked FAILED_DRIVER: ${reason}`);
  }
  return saved;
}
