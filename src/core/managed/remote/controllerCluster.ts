// The controller cluster: a normal Skydeck cluster in the user's controller workspace, so
// status, down and leaks see it like any other. Launched on first use through ops launch
// (the same provision path as any cluster), with a task that only says where it goes. On a
// cloud it is one small VM whose own identity may launch job clusters (Placement.jobsController)
// and whose agent stops it once no managed job is active (controllerNode.ts).
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { getCluster, thisCreator, type ClusterRecord } from '../../state';
import { launch, OpsError, type OpsContext } from '../../ops';
import { refreshCloudRow } from '../../ops/status';
import { DEFAULT_CONTROLLER_IDLE_MINUTES, type ControllerCloud, type ControllerPlace } from './setting';

type ClusterPlace = Exclude<ControllerPlace, { kind: 'this-machine' }>;

/** Per cloud: [x64, arm64]. Each has 2 GB, enough for one node process and sql.js. */
const CONTROLLER_TYPES: Record<ControllerCloud, [string, string]> = {
  aws: ['t3.small', 't4g.small'],
  gcp: ['e2-small', 't2a-standard-1'],
  azure: ['Standard_B2s', 'Standard_B2pls_v2'],
};

/**
 * The controller VM's instance type: small and cheap (it runs one node process and sql.js). Its
 * CPU matches this machine's where it can (arm64 Linux: Graviton, Ampere), so this machine's
 * node binary can be uploaded when the image has no Node.js 20+ (nodeChoice.ts).
 */
export function controllerInstanceType(cloud: ControllerCloud, arch: string = process.arch): string {
  return CONTROLLER_TYPES[cloud][arch === 'arm64' ? 1 : 0];
}

function placeText(place: ClusterPlace): string {
  if (place.kind === 'ssh') return `ssh:${place.pool}`;
  if (place.kind === 'cloud') return place.region ? `${place.cloud}/${place.region}` : place.cloud;
  return 'local';
}

/** `skydeck-jobs-<8 hex>`: per user, machine and place, so a new place never reuses another's row. */
export function controllerClusterName(place: ClusterPlace, creator = thisCreator()): string {
  const where = placeText(place);
  return `skydeck-jobs-${createHash('sha256').update(`${creator.user}\0${creator.machine}\0${where}`).digest('hex').slice(0, 8)}`;
}

/** The controller cluster's task: where it goes, nothing to run. Exported for tests. */
export function controllerTaskText(place: ClusterPlace, arch: string = process.arch): string {
  const resources = place.kind === 'ssh' ? `{infra: ${JSON.stringify(`ssh/${place.pool}`)}}`
    : place.kind === 'cloud' ? `{infra: ${JSON.stringify(placeText(place))}, instance_type: ${controllerInstanceType(place.cloud, arch)}}`
      : '{cloud: local}';
  return `name: skydeck-jobs-controller\nresources: ${resources}\nrun: echo "Skydeck managed-jobs controller node"\n`;
}

function placeWords(place: ClusterPlace): string {
  if (place.kind === 'ssh') return `a host of ssh pool ${place.pool}`;
  if (place.kind === 'cloud') return `a ${controllerInstanceType(place.cloud)} on ${placeText(place)}`;
  return 'local';
}

/**
 * The controller cluster's row, launched (or started again) first if it is not UP. A cloud
 * controller stops itself when idle, so its row is checked with the cloud before it is trusted.
 */
export async function ensureControllerCluster(ctx: OpsContext, place: ClusterPlace, o: { idleMinutes?: number; startStopped?: boolean } = {}): Promise<ClusterRecord> {
  const name = controllerClusterName(place);
  let known = await ctx.store.read((db) => getCluster(db, name));
  if (known && place.kind === 'cloud') known = await refreshCloudRow(ctx, known);
  if (known?.status === 'UP') return known;
  if (known && place.kind === 'cloud' && o.startStopped === false) {
    const why = known.status === 'STOPPED' ? 'it stops itself once no managed job is active, so none is running. Its job list is on its disk: '
      : `its last launch did not finish${known.last_error ? ` (${known.last_error})` : ''}: `;
    throw new OpsError('usage', `the managed-jobs controller VM ${name} is ${known.status}: ${why}` +
      '"skydeck jobs queue --refresh" starts it to read the list (billed while it runs; it stops itself again when idle)');
  }
  ctx.progress(`${known ? 'Starting' : 'Launching'} the managed-jobs controller cluster ${name} (${placeWords(place)})`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-ctl-'));
  try {
    const taskFile = path.join(dir, 'controller.yaml');
    fs.writeFileSync(taskFile, controllerTaskText(place));
    const cloud = place.kind === 'ssh' ? 'ssh' : place.kind === 'cloud' ? place.cloud : 'local';
    // A cloud controller autostops (a stop: its disk keeps the store) once no managed job is active.
    const idle = place.kind === 'cloud' ? { idleMinutes: o.idleMinutes ?? DEFAULT_CONTROLLER_IDLE_MINUTES, down: false, jobsController: true } : {};
    await launch(ctx, { taskFile, cluster: name, cloud, detach: true, ...idle });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const row = await ctx.store.read((db) => getCluster(db, name));
  if (row?.status !== 'UP') throw new OpsError('failed', `the controller cluster ${name} did not come up (${row?.last_error ?? row?.status ?? 'no row'})`);
  return row;
}
