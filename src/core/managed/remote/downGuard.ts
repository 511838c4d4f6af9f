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

type Client = Awaited<ReturnType<typeof connectController>>;

/**
 * Runs `check` with the client of UP controller cluster `name` and its unfinished jobs (not
 * ended, or their cluster not yet gone); nothing for any other cluster. A controller that cannot
 * be reached goes to `unreachable`, which throws or returns to go on without the check.
 */
async function withController(
  ctx: OpsContext, name: string, bundle: CliBundle | undefined,
  unreachable: (e: Error) => void, check: (client: Client, busy: number[]) => Promise<void>,
): Promise<void> {
  if (!CONTROLLER_CLUSTER.test(name)) return;
  const row = await ctx.store.read((db) => getCluster(db, name));
  if (!row || row.status !== 'UP') return;
  let client: Client;
  try {
    client = await connectController(ctx, row, { bundle });
  } catch (e) {
    return unreachable(e as Error);
  }
  try {
    const busy = (await client.list()).jobs.filter((j) => !isTerminal(j.status) || j.clusterName !== null).map((j) => j.id);
    await check(client, busy);
  } finally {
    await client.close();
  }
}

/** `bundle`: the CLI bundle to run on the node (default: the running CLI's). */
export async function guardControllerDown(ctx: OpsContext, name: string, purge: boolean, o: { bundle?: CliBundle } = {}): Promise<void> {
  await withController(ctx, name, o.bundle, (e) => {
    if (purge) return ctx.warn(`could not reach the managed-jobs controller on ${name} (${e.message}); --purge goes on`);
    throw new OpsError('failed', `${name} is a managed-jobs controller and its jobs cannot be checked (${e.message}); --purge tears it down anyway`);
  }, async (client, busy) => {
    if (busy.length && !purge) {
      throw new OpsError('failed',
        `${name} is the managed-jobs controller of ${busy.length} unfinished job(s) (${busy.join(', ')}); their clusters would be left with no controller. ` +
        'Cancel them (skydeck jobs cancel --all -y), wait until "skydeck jobs queue" lists none, then down it');
    }
    if (busy.length) ctx.warn(`--purge: managed jobs ${busy.join(', ')} lose their controller; their clusters stay on the node's state until you down them there`);
    await client.stopController();
  });
}

/** `stop` of a controller cluster: only once every managed job has ended and its cluster is gone. */
export async function guardControllerStop(ctx: OpsContext, name: string, o: { bundle?: CliBundle } = {}): Promise<void> {
  await withController(ctx, name, o.bundle, (e) => {
    throw new OpsError('failed', `${name} is a managed-jobs controller and its jobs cannot be checked (${e.message}), so it is not stopped: ` +
      'a job still running would go on billing with no controller. Try again, or tear it down with "skydeck down --purge"');
  }, async (_client, busy) => {
    if (busy.length) {
      throw new OpsError('failed',
        `${name} is the managed-jobs controller of ${busy.length} unfinished job(s) (${busy.join(', ')}); stopped, it would leave their clusters billing with no controller. ` +
        'It stops itself once none is active; or cancel them (skydeck jobs cancel --all -y) and stop it then');
    }
  });
}
