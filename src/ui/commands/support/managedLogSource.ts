import type { OpsContext } from '../../../core/ops';
import { requireCluster } from '../../../core/ops/findCluster';
import { followManagedLog, type FollowState, type ManagedJobsClient } from '../../../core/managed';
import type { LogSource } from '../../logs';
import { relayManagedLog } from './managedRelay';

// Bold, on a line of its own: the page is a terminal (xterm.js), so the marker is a styled line
// in the same stream, and Save keeps it with the output.
const MARK_ON = '\x1b[1;33m';
const MARK_OFF = '\x1b[0m';

/**
 * A managed job's log for the panel: ONE continuous stream over every cluster the job runs on
 * (core followManagedLog), a marked line at each recovery. Offsets are the stream's own; a
 * resumed follow of the same panel (Retry, a reconnect) continues where this source stopped,
 * and a new panel (from=0) starts over.
 */
export function managedLogSource(client: () => Promise<ManagedJobsClient>, controllerOps: () => Promise<OpsContext>, id: number): LogSource {
  let state: FollowState = { offset: 0 };
  let total = 0;
  let lastByte = 0x0a;
  let relayed = { bytes: 0 };
  return {
    async follow(from, onChunk, h) {
      if (from === 0 && total > 0) {
        state = { offset: 0 };
        relayed = { bytes: 0 };
        total = 0;
        lastByte = 0x0a;
      }
      const emit = (d: Buffer) => {
        if (!d.length) return;
        onChunk(d, total);
        total += d.length;
        lastByte = d[d.length - 1];
      };
      const mark = (line: string) => emit(Buffer.from(`${lastByte === 0x0a ? '' : '\n'}${MARK_ON}${line}${MARK_OFF}\n`));
      const c = await client();
      if (c.follow) return relayManagedLog(c, id, relayed, emit, mark, h);
      const j = await followManagedLog(c, id, {
        state,
        signal: h.signal,
        onOutput: emit,
        onMarker: mark,
        onJob: (job) => h.onStatus({
          status: job.status, reason: job.lastError, startedAt: job.startedAt === null ? null : job.startedAt / 1000,
          endedAt: job.endedAt === null ? null : job.endedAt / 1000,
        }),
        follow: async (seg, offset, onSeg, signal) => {
          const ctx = await controllerOps();
          const row = await requireCluster(ctx, seg.cluster);
          await ctx.connections.client(row).followLogs(seg.agentJobId, (d) => onSeg(d), { offset, signal, onReconnect: h.onReconnect });
        },
        pollMs: 500,
      });
      return j ? { status: j.status, exit_code: null, reason: j.lastError } : undefined;
    },
  };
}
