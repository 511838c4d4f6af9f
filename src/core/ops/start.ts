import { resumeCluster } from '../provision';
import type { ClusterRecord } from '../state';
import type { OpsContext } from './context';
import { OpsError } from './errors';
import { requireCluster } from './findCluster';
import { envFor, isProviderCluster } from './providerEnv';
import { agentBootstrap } from './agentBootstrap';

/**
 * Starts a stopped cloud cluster in place and reconnects its agent. A failure keeps the row
 * (and the stopped instances: their disks are the user's data).
 */
export async function start(ctx: OpsContext, name: string, signal?: AbortSignal): Promise<ClusterRecord> {
  const row = await requireCluster(ctx, name, false);
  if (!isProviderCluster(row)) {
    throw new OpsError('unavailable', `${name} runs on ${row.provider}: local and ssh clusters are never stopped, so there is nothing to start`);
  }
  if (row.status === 'UP' && !row.flags) return row;
  if (row.flags === 'terminating' || row.flags === 'termination-unconfirmed') {
    throw new OpsError('failed', `${name} is being torn down (${row.flags}); run "skydeck down ${name}" to finish`);
  }
  const env = envFor(ctx, row.provider);
  await ctx.connections.forget(name);
  ctx.progress(`Starting ${name}`);
  const r = await resumeCluster(env, { ...row, flags: null }, { bootstrap: ctx.bootstrap ?? agentBootstrap(ctx), signal });
  if (!r.ok) throw new OpsError('failed', `${r.error}. The cluster is kept`);
  return r.row!;
}
