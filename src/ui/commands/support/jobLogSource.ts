import { queue, type OpsContext } from '../../../core/ops';
import { requireCluster } from '../../../core/ops/findCluster';
import type { JobKey, LogSource } from '../../logs';

/**
 * Adapts AgentClient.followLogs (which resumes by byte offset after reconnects) to the log
 * panel's LogSource. The queue row gives the panel its status line before the first byte.
 */
export function jobLogSource(ops: () => Promise<OpsContext>, key: JobKey): LogSource {
  return {
    async follow(from, onChunk, h) {
      const ctx = await ops();
      const row = (await queue(ctx, key.cluster)).find((j) => j.job_id === key.jobId);
      if (row) {
        h.onStatus({
          status: row.status, exitCode: row.exit_code, reason: row.reason, startedAt: row.started_at, endedAt: row.ended_at,
          numNodes: row.num_nodes ?? 1,
        });
      }
      const client = ctx.connections.client(await requireCluster(ctx, key.cluster));
      const final = await client.followLogs(key.jobId, onChunk, { offset: from, signal: h.signal, onReconnect: h.onReconnect, rank: key.rank });
      return final ? { status: final.status, exit_code: final.exit_code, reason: final.reason } : undefined;
    },
  };
}
