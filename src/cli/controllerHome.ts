// The CLI's side of the managed-jobs controller. On this machine (core/managed/localHome.ts) it
// starts the controller by running itself, the same node and CLI entry, so versions match; a
// controller of another bundle is asked to hand over (controllerHandover.ts). A controller
// cluster (jobs.controller: local-cluster or ssh:<pool>) runs this same code on its node: the
// remote client calls the node's CLI, which uses the local client there.
import {
  LocalManagedClient, checkControllerPlace, controllerHome, leaseOwner, ensureLocalController as ensureWith, leaseHolder, openRemoteClient, readControllerSetting, storeFileOf,
  type CliEntry, type ControllerSetting, type ManagedJobsClient,
} from '../core/managed';
import { OpsError, type OpsContext } from '../core/ops';
import { UsageError } from './args';
import { isSameProcess } from '../core/state/atomicWrite';
import { askHandover } from './controllerHandover';

export { controllerHome, storeFileOf, leaseHolder };

const cliEntry = (entry: string): CliEntry => ({ execPath: process.execPath, args: [...process.execArgv, entry] });

/** Starts the controller unless one runs; one running another bundle is asked to hand over. */
export function ensureLocalController(workspaceRoot: string, entry = process.argv[1]): { pid: number; started: boolean; logFile: string; handover?: boolean } {
  const c = ensureWith(workspaceRoot, cliEntry(entry));
  return c.started ? c : { ...c, handover: askHandover(workspaceRoot, entry) };
}

/** Ends the live controller of the store (SIGTERM, then waits); returns its pid, if one ran. */
export async function stopLocalController(workspaceRoot: string): Promise<number | undefined> {
  // The holder's recorded start time was checked just now: a controller that died leaves its
  // pid in the lease, and pids are reused (often within 32768).
  const owner = leaseOwner(storeFileOf(workspaceRoot));
  if (owner === undefined) return undefined;
  const { pid, start } = owner;
  process.kill(pid, 'SIGTERM');
  for (let i = 0; i < 100 && isSameProcess(pid, start); i++) await new Promise((r) => setTimeout(r, 100));
  if (isSameProcess(pid, start)) throw new Error(`the managed-jobs controller (pid ${pid}) did not stop within 10 s`);
  return pid;
}

/**
 * The client every `jobs` command uses: the controller on this machine, or on the controller
 * cluster that $SKYDECK_JOBS_CONTROLLER / jobs.controller names (launched on first use).
 */
export async function managedClient(ctx: OpsContext, o: { copyCredentials?: boolean; launch?: boolean; refresh?: boolean } = {}): Promise<ManagedJobsClient> {
  const setting = controllerSetting();
  if (setting.place.kind !== 'this-machine') {
    return openRemoteClient(ctx, setting.place, { copyCredentials: o.copyCredentials || setting.copyCredentials, launch: o.launch, refresh: o.refresh, idleMinutes: setting.idleMinutes });
  }
  return LocalManagedClient.open(storeFileOf(ctx.workspaceRoot), () => {
    const c = ensureLocalController(ctx.workspaceRoot);
    const held = c.handover ? `pid ${c.pid}, asked to hand over to this version` : `pid ${c.pid}`;
    return { where: 'this machine', started: c.started, detail: c.started ? `started it: pid ${c.pid}, log ${c.logFile}` : held };
  }, () => ctx.clock?.now() ?? Date.now(), ctx.workspaceRoot);
}

/** A task the configured controller's cloud would refuse is a usage error before anything starts. */
export function checkTasksForController(tasks: string[], envs: Record<string, string>): void {
  const setting = controllerSetting();
  try {
    checkControllerPlace(setting.place, tasks, envs);
  } catch (e) {
    throw new UsageError(`${(e as Error).message} (controller from ${setting.source})`);
  }
}

/** The jobs.controller setting; a bad value is a usage error naming where it came from. */
function controllerSetting(): ControllerSetting {
  try {
    return readControllerSetting();
  } catch (e) {
    throw new OpsError('usage', (e as Error).message);
  }
}
