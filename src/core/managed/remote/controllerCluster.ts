// The controller cluster: a normal Skydeck cluster in the user's controller workspace, so
// status, down and leaks see it like any other. Launched on first use through ops launch
// (the same provision path as any cluster), with a task that only says where it goes.
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { getCluster, thisCreator, type ClusterRecord } from '../../state';
import { launch, OpsError, type OpsContext } from '../../ops';
import type { ControllerPlace } from './setting';

/** `skydeck-jobs-<8 hex>`: per user, machine and place, so a new place never reuses another's row. */
export function controllerClusterName(place: Exclude<ControllerPlace, { kind: 'this-machine' }>, creator = thisCreator()): string {
  const where = place.kind === 'ssh' ? `ssh:${place.pool}` : 'local';
  return `skydeck-jobs-${createHash('sha256').update(`${creator.user}\0${creator.machine}\0${where}`).digest('hex').slice(0, 8)}`;
}

function taskText(place: Exclude<ControllerPlace, { kind: 'this-machine' }>): string {
  const resources = place.kind === 'ssh' ? `{infra: ${JSON.stringify(`ssh/${place.pool}`)}}` : '{cloud: local}';
  return `name: skydeck-jobs-controller\nresources: ${resources}\nrun: echo "Skydeck managed-jobs controller node"\n`;
}

/** The controller cluster's row, launched first if it is not UP. */
export async function ensureControllerCluster(ctx: OpsContext, place: Exclude<ControllerPlace, { kind: 'this-machine' }>): Promise<ClusterRecord> {
  const name = controllerClusterName(place);
  const known = await ctx.store.read((db) => getCluster(db, name));
  if (known?.status === 'UP') return known;
  ctx.progress(`Launching the managed-jobs controller cluster ${name} (${place.kind === 'ssh' ? `a host of ssh pool ${place.pool}` : 'local'})`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-ctl-'));
  try {
    const taskFile = path.join(dir, 'controller.yaml');
    fs.writeFileSync(taskFile, taskText(place));
    await launch(ctx, { taskFile, cluster: name, cloud: place.kind === 'ssh' ? 'ssh' : 'local', detach: true });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const row = await ctx.store.read((db) => getCluster(db, name));
  if (row?.status !== 'UP') throw new OpsError('failed', `the controller cluster ${name} did not come up (${row?.last_error ?? row?.status ?? 'no row'})`);
  return row;
}
