// Opens the client of a controller cluster: the cluster up (launched on first use), the runtime
// on its node (bundle and node), then a RemoteManagedClient over the cluster's connection.
import type { OpsContext } from '../../ops';
import type { ClusterRecord } from '../../state';
import { readHandle } from '../../ops/clusterHandle';
import { isProviderCluster, providerOf } from '../../ops/providerEnv';
import { refOf } from '../../provision/handle';
import { cliBundle, type CliBundle } from './bundle';
import { controllerClusterName, ensureControllerCluster } from './controllerCluster';
import { AbsentControllerClient } from './absentClient';
import { getCluster } from '../../state';
import { refreshCloudRow } from '../../ops/status';
import type { ManagedJobsClient } from '../client';
import { ensureRuntime } from './runtime';
import { RemoteManagedClient } from './remoteClient';
import { copyPoolAccess } from './credentials';
import type { ControllerPlace } from './setting';

export interface RemoteOpenOptions {
  /** Default: the bundle of the running CLI. */
  bundle?: CliBundle;
  /** Opt-in: give the controller the ssh pools' entries, keys and host keys (credentials.ts). */
  copyCredentials?: boolean;
  /** false: a look only; with no controller cluster yet, answer "no jobs" instead of launching one. */
  launch?: boolean;
  /** Opened by the editor: this process's binary is not a plain node, so it is never uploaded. */
  editor?: boolean;
  /** A cloud controller cluster's autostop (jobs.controller_idle_minutes), set when it is launched. */
  idleMinutes?: number;
  /** With launch false: a stopped cloud controller is started to answer (`jobs queue --refresh`). */
  refresh?: boolean;
}

export async function openRemoteClient(ctx: OpsContext, place: Exclude<ControllerPlace, { kind: 'this-machine' }>, o: RemoteOpenOptions = {}): Promise<ManagedJobsClient> {
  const bundle = o.bundle ?? cliBundle();
  if (o.launch === false) {
    const name = controllerClusterName(place);
    let row = await ctx.store.read((db) => getCluster(db, name));
    // A cloud controller stops itself when idle: its row says UP until the cloud is asked, and a
    // stopped VM's old address may be another machine's by now.
    if (row && o.editor && place.kind === 'cloud' && row.status === 'UP') row = await refreshCloudRow(ctx, row);
    if (!row) return new AbsentControllerClient(name);
    // The editor looks every few seconds: it never relaunches a controller cluster that is not UP
    // (its jobs are unknown then, not "none"); a submit or a `jobs` command does.
    if (o.editor && row.status !== 'UP') {
      throw new Error(`the managed-jobs controller cluster ${name} is ${row.status}${row.last_error ? ` (${row.last_error})` : ''}: its jobs are unknown until it is up again; "skydeck jobs queue --refresh" starts it`);
    }
  }
  // A look (launch false) never starts a stopped controller VM unless asked: it bills while up,
  // and it stopped itself only once no managed job was active.
  const startStopped = o.launch !== false || o.refresh === true;
  return connectController(ctx, await ensureControllerCluster(ctx, place, { idleMinutes: o.idleMinutes, startStopped }), { ...o, bundle });
}

/** What the node's CLI needs of its cloud besides the VM's own credentials (Provider.controllerNodeEnv). */
function cloudEnv(ctx: OpsContext, row: ClusterRecord): Record<string, string> {
  if (!isProviderCluster(row)) return {};
  return providerOf(ctx, row.provider)?.controllerNodeEnv?.(refOf(row)) ?? {};
}

/** A client of the controller on an UP controller cluster `row` (its runtime put there first). */
export async function connectController(ctx: OpsContext, row: ClusterRecord, o: RemoteOpenOptions = {}): Promise<RemoteManagedClient> {
  const bundle = o.bundle ?? cliBundle();
  const transport = ctx.connections.transportForCluster(row);
  try {
    // A local cluster keeps everything in its own directory; on an ssh host, ~/.skydeck/jobs-controller.
    const base = readHandle(row).base;
    const runtime = await ensureRuntime(transport, row.provider === 'local' && base ? `${base}/jobs-controller` : '', bundle, (m) => ctx.progress(m), { noUpload: o.editor });
    const access = o.copyCredentials ? await copyPoolAccess(ctx, transport, runtime.root) : runtime.accessEnv;
    return new RemoteManagedClient(ctx, row, transport, runtime, { ...cloudEnv(ctx, row), ...access });
  } catch (e) {
    await transport.close();
    throw e;
  }
}
