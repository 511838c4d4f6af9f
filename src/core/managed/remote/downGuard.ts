// `down` of a controller cluster removes the controller's store with Skydeck's directory on the
// node: done while managed jobs are unfinished, their clusters would be left with no controller.
// So the down is refused until every job has ended (or --purge), and the idle controller
// process is stopped first, so it does not run on over deleted files. A `stop` keeps the store
// but halts the controller just as surely: refused while a job is unfinished (no override: the
// VM stops itself once none is, and down --purge is there for a controller that cannot answer).
import { getCluster } from '../../state';
import { OpsError, type OpsContext } from '../../ops';
import { connectController } from './open';
import type { CliBundle } from './bundle';
import { CONTROLLER_CLUSTER } from '../../ops/controllerNode';

export { CONTROLLER_CLUSTER };

type Client = Awaited<ReturnType<typeof connectController>>;

/** Undoes a guard's seal when the stop or down it allowed failed (best effort: a seal also expires). */
export type Unseal = () => Promise<void>;

/**
 * Runs `check` with the client of UP controller cluster `name`; nothing for any other cluster.
 * A controller that cannot be reached goes to `unreachable`, which throws or returns to go on
 * without the check.
 */
async function withController(
  ctx: OpsContext, name: string, bundle: CliBundle | undefined,
  unreachable: (e: Error) => void, check: (client: Client) => Promise<Unseal | undefined>,
): Promise<Unseal | undefined> {
  if (!CONTROLLER_CLUSTER.test(name)) return undefined;
  const row = await ctx.store.read((db) => getCluster(db, name));
  if (!row || row.status !== 'UP') return undefined;
  let client: Client;
  try {
    client = await connectController(ctx, row, { bundle });
  } catch (e) {
    unreachable(e as Error);
    return undefined;
  }
  try {
    return await check(client);
  } finally {
    await client.close();
  }
}

/** An unseal that opens its own client (the guard's is closed by then). */
function unsealLater(ctx: OpsContext, name: string, bundle: CliBundle | undefined): Unseal {
  return async () => {
    await withController(ctx, name, bundle, (e) => ctx.warn(`could not unseal the managed-jobs controller on ${name} (${e.message}); it takes new jobs again within 15 minutes`), async (c) => {
      await c.unseal();
      return undefined;
    }).catch((e: Error) => ctx.warn(`could not unseal the managed-jobs controller on ${name}: ${e.message}`));
  };
}

/**
 * `bundle`: the CLI bundle to run on the node (default: the running CLI's). The check and the
 * seal against new jobs are one store write on the node, so a job submitted meanwhile is either
 * seen here or refused there. Returns how to unseal if the down then fails.
 */
export async function guardControllerDown(ctx: OpsContext, name: string, purge: boolean, o: { bundle?: CliBundle } = {}): Promise<Unseal | undefined> {
  return withController(ctx, name, o.bundle, (e) => {
    if (purge) return ctx.warn(`could not reach the managed-jobs controller on ${name} (${e.message}); --purge goes on`);
    throw new OpsError('failed', `${name} is a managed-jobs controller and its jobs cannot be checked (${e.message}); --purge tears it down anyway`);
  }, async (client) => {
    const busy = await client.seal('down', purge);
    if (busy.length && !purge) {
      throw new OpsError('failed',
        `${name} is the managed-jobs controller of ${busy.length} unfinished job(s) (${busy.join(', ')}); their clusters would be left with no controller. ` +
        'Cancel them (skydeck jobs cancel --all -y), wait until "skydeck jobs queue" lists none, then down it');
    }
    if (busy.length) ctx.warn(`--purge: managed jobs ${busy.join(', ')} lose their controller; their clusters stay on the node's state until you down them there`);
    await client.stopController();
    return unsealLater(ctx, name, o.bundle);
  });
}

/** `stop` of a controller cluster: only once every managed job has ended and its cluster is gone (checked and sealed at once). */
export async function guardControllerStop(ctx: OpsContext, name: string, o: { bundle?: CliBundle } = {}): Promise<Unseal | undefined> {
  return withController(ctx, name, o.bundle, (e) => {
    throw new OpsError('failed', `${name} is a managed-jobs controller and its jobs cannot be checked (${e.message}), so it is not stopped: ` +
      'a job still running would go on billing with no controller. Try again, or tear it down with "skydeck down --purge"');
  }, async (client) => {
    const busy = await client.seal('stop');
    if (busy.length) {
      throw new OpsError('failed',
        `${name} is the managed-jobs controller of ${busy.length} unfinished job(s) (${busy.join(', ')}); stopped, it would leave their clusters billing with no controller. ` +
        'It stops itself once none is active; or cancel them (skydeck jobs cancel --all -y) and stop it then');
    }
    return unsealLater(ctx, name, o.bundle);
  });
}
