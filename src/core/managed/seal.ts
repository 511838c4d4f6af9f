// A controller's store sealed against new jobs while its cluster is being stopped or torn down.
// The guard (remote/downGuard.ts) checks "no unfinished job" and seals in one store write, and
// every submit looks at the seal in its own store write: a job submitted in between is refused
// ("try again") instead of being recorded on a store that is about to stop or be deleted.
// A seal holds for this boot of the machine only (a stopped VM that starts again reboots) and
// at most SEAL_MS (a stop or down that died half-way is not a lasting refusal).
import * as fs from 'node:fs';
import type { Database } from 'sql.js';
import { writeFileAtomic } from '../state/atomicWrite';
import { hasWork, listJobs } from './jobRows';

export const SEAL_MS = 15 * 60_000;

export type SealWhy = 'stop' | 'down';

interface SealRecord { boot: string; until: number; why: SealWhy }

export function sealFileOf(storeFile: string): string {
  return `${storeFile}.sealed`;
}

function bootId(): string {
  try {
    return fs.readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  } catch {
    return '';
  }
}

/** The seal in force, if any (a damaged, stale or other boot's seal is none). */
export function sealInForce(storeFile: string, now: number): SealWhy | undefined {
  let v: Partial<SealRecord>;
  try {
    v = JSON.parse(fs.readFileSync(sealFileOf(storeFile), 'utf8')) as Partial<SealRecord>;
  } catch {
    return undefined;
  }
  if (v.boot !== bootId() || typeof v.until !== 'number' || now >= v.until || now < v.until - SEAL_MS) return undefined;
  return v.why === 'down' || v.why === 'stop' ? v.why : undefined;
}

/** Throws if the store is sealed; call inside the submit's store write. */
export function refuseIfSealed(storeFile: string, now: number): void {
  const why = sealInForce(storeFile, now);
  if (why) throw new Error(`the managed-jobs controller is being ${why === 'stop' ? 'stopped' : 'torn down'}, so it takes no new job; nothing was submitted. Try again once that is over`);
}

/** The unfinished jobs (not ended, or their cluster not yet gone); none: the seal is written. Call inside a store write. */
export function sealIfIdle(db: Database, storeFile: string, why: SealWhy, now: number, force = false): number[] {
  const l = listJobs(db);
  // A damaged row may be an unfinished job: it counts as one.
  const busy = [...l.jobs.filter(hasWork).map((j) => j.id), ...l.refused.map((r) => Number(r.id))];
  if (busy.length && !force) return busy;
  writeFileAtomic(sealFileOf(storeFile), Buffer.from(JSON.stringify({ boot: bootId(), until: now + SEAL_MS, why })));
  return busy;
}

export function unseal(storeFile: string): void {
  fs.rmSync(sealFileOf(storeFile), { force: true });
}
