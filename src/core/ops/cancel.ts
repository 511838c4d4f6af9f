import type { CancelResult } from '../jobs';
import { AgentError } from '../jobs';
import type { OpsContext } from './context';
import { OpsError } from './errors';
import { requireCluster } from './findCluster';

export async function cancel(
  ctx: OpsContext,
  cluster: string,
  target: { jobIds?: number[]; all?: boolean },
  graceSeconds?: number,
): Promise<CancelResult> {
  const row = await requireCluster(ctx, cluster);
  try {
    return await ctx.connections.client(row).cancel(target, graceSeconds);
  } catch (e) {
    if (e instanceof AgentError) throw new OpsError(e.code === 'not_found' ? 'usage' : 'failed', `${cluster}: ${e.message}`);
    throw e;
  }
}
