// `down` of a controller cluster removes the controller's store with Skydeck's directory on the
// node: done while managed jobs are unfinished, their clusters would be left with no controller.
// So the down is refused until every job has ended (or --purge), and the idle controller
// process is stopped first, so it does not run on over deleted files. A `stop` keeps the store
// but halts the controller just as surely: refused while a job is unfinished (no override: the
// VM stops itself once none is, and down --purge is there for a controller that cannot answer).
import { getCluster } from '../../state';
import { OpsError, type OpsContext } from '../../ops';
import { isTerminal } from '../states';
import { connectController } from './open';
import type { CliBundle } from './bundle';
import { CONTROLLER_CLUSTER } from '../../ops/controllerNode';

export { CONTROLLER_CLUSTER };

/** `bundle`: the CLI bundle to run on the node (default: the running CLI's). */
export async function guardControllerDown(ctx: OpsContext, name: string, purge: boolean, o: { bundle?: CliBundle } = {}): Promise<void> {
  if (!CONTROLLER_CLUSTER.test(name)) return;
  const row = await ctx.store.read((db) => getCluster(db, name));
  if (!row || row.status !== 'UP') return;
  let client;
  try {
    client = await connectController(ctx, row, { bundle: o.bundle });
  } catch (e) {
    if (purge) return ctx.warn(`could not reach the managed-jobs controller on ${name} (${(e as Error).message}); --purge goes on`);
    throw new OpsError('failed', `${name} is a managed-jobs controller and its jobs cannot be checked (${(e as Error).message}); --purge tears it down anyway`);
  }
  try {
    const busy = (await client.list()).jobs.filter((j) => !isTerminal(j.status) || j.clusterName !== null);
    if (busy.length && !purge) {
      throw new OpsError('failed',
        `${name} is the managed-jobs controller of ${busy.length} unfinished job(s) (${busy.map((j) => j.id).join(', ')}); their clusters would be left with no controller. ` +
        'Cancel them (skydeck jobs cancel --all -y), wait until "skydeck jobs queue" lists none, then down it');
    }
    if (busy.length) ctx.warn(`--purge: managed jobs ${busy.map((j) => j.id).join(', ')} lose their controller; their clusters stay on the node's state until you down them there`);
    await client.stopController();
  } finally {
    await client.close();
  }
}

/** `stop` of a controller cluster: only once every managed job has ended and its cluster is gone. */
export async function guardControllerStop(ctx: OpsContext, name: string, o: { bundle?: CliBundle } = {}): Promise<void> {
  if (!CONTROLLER_CLUSTER.test(name)) return;
  const row = await ctx.store.read((db) => getCluster(db, name));
  if (!row || row.status !== 'UP') return;
  let client;
  try {
    client = await connectController(ctx, row, { bundle: o.bundle });
  } catch (e) {
    throw new OpsError('failed', `${name} is a managed-jobs controller and its jobs cannot be checked (${(e as Error).message}), so it is not stopped: ` +
      'a job still running would go on billing with no controller. Try again, or tear it down with "skydeck down --purge"');
  }
  try {
    const busy = (await client.list()).jobs.filter((j) => !isTerminal(j.status) || j.clusterName !== null);
    if (busy.length) {
      throw new OpsError('failed',
        `${name} is the managed-jobs controller of ${busy.length} unfinished job(s) (${busy.map((j) => j.id).join(', ')}); stopped, it would leave their clusters billing with no controller. ` +
        'It stops itself once none is active; or cancel them (skydeck jobs cancel --all -y) and stop it then');
    }
  } finally {
    await client.close();
  }
}
