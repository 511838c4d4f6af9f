import type { ManagedJob, ManagedJobsClient } from '../../../core/managed';
import type { LogFinal, LogFollowHooks } from '../../logs';

/**
 * A managed job's log when its controller runs on a controller cluster: the job clusters' rows
 * live there, so the controller follows them and relays the bytes (its `follow`). A relay
 * always starts at the job's first byte; a resumed panel drops what it already showed.
 * The controller's own lines (recovery markers, the final verdict) come on stderr.
 */
export async function relayManagedLog(
  c: ManagedJobsClient, id: number, relayed: { bytes: number },
  emit: (d: Buffer) => void, mark: (line: string) => void, h: LogFollowHooks,
): Promise<LogFinal | undefined> {
  if (!c.follow) throw new Error('this controller client cannot relay a log');
  const status = (j: ManagedJob | undefined) => j && h.onStatus({
    status: j.status, reason: j.lastError, startedAt: j.startedAt === null ? null : j.startedAt / 1000,
    endedAt: j.endedAt === null ? null : j.endedAt / 1000,
  });
  status(await c.job(id));
  // `relayed.bytes`: job bytes this panel showed already (markers are not in the relay's stream).
  let skip = relayed.bytes;
  let errText = '';
  await c.follow(id, {
    out: (b) => {
      const drop = Math.min(skip, b.length);
      skip -= drop;
      if (drop === b.length) return;
      relayed.bytes += b.length - drop;
      emit(b.subarray(drop));
    },
    err: (b) => {
      errText += b.toString('utf8');
      const lines = errText.split('\n');
      errText = lines.pop() ?? '';
      for (const l of lines) if (l.trim()) mark(l);
    },
  }, h.signal);
  if (h.signal.aborted) return undefined;
  const j = await c.job(id);
  status(j);
  return j ? { status: j.status, exit_code: null, reason: j.lastError } : undefined;
}
