import { stopWithProof } from '../provision';
import type { OpsContext } from './context';
import { OpsError } from './errors';
import { requireCluster } from './findCluster';
import { envFor, isProviderCluster } from './providerEnv';
import { unmountCloudBuckets } from './cloudUnmount';
import { rowSpotStopProblem } from './spotStop';

/**
 * Stops a cloud cluster: the row becomes STOPPED only once every instance is proven stopping
 * or stopped; otherwise it is flagged "stop-unconfirmed" and the error says so.
 */
export async function stop(ctx: OpsContext, name: string): Promise<{ notes: string[] }> {
  const row = await requireCluster(ctx, name, false);
  if (!isProviderCluster(row)) {
    throw new OpsError('unavailable', `${name} runs on ${row.provider}: local and ssh clusters cannot be stopped, only downed`);
  }
  if (row.status === 'STOPPED' && !row.flags) return { notes: [`${name} is already stopped`] };
  const env = envFor(ctx, row.provider);
  if (env.provider.cannotStop) throw new OpsError('unavailable', `${name} runs on ${row.provider}: ${env.provider.cannotStop}`);
  const spot = rowSpotStopProblem(row);
  if (spot) throw new OpsError('unavailable', `${name} cannot be stopped: ${spot}; use "down" to tear it down`);
  // Mounts off first, best-effort: a MOUNT_CACHED cache left on a stopped disk reaches its
  // bucket only if the same mount is made again after a start.
  const mounts = await unmountCloudBuckets(ctx, row);
  await ctx.connections.forget(name);
  ctx.progress(`Stopping ${name} and waiting for the cloud to confirm`);
  const r = await stopWithProof(env, row);
  if (!r.confirmed) throw new OpsError('failed', `could not confirm that ${name} stopped (${r.reason}); run "skydeck stop ${name}" again`);
  return { notes: [...mounts.notes, ...mounts.warnings, `stop confirmed in ${Math.round(r.confirmMs / 100) / 10} s`] };
}
