// What the GCP controller tests share: launching the controller from this machine, the CLI on
// its VM (the VM's own token and the environment this machine gives it), and a call's answer.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { OAuth2Client } from 'google-auth-library';
import { TAG_UID } from '../../../src/core/clouds/provider';
import { getCluster, type ClusterRecord } from '../../../src/core/state';
import type { OpsContext } from '../../../src/core/ops';
import { launchOnProvider } from '../../../src/core/ops/launchProvider';
import { parseTaskText } from '../../../src/core/task';
import { refOf } from '../../../src/core/provision/handle';
import { controllerClusterName, controllerTaskText } from '../../../src/core/managed/remote/controllerCluster';
import type { ControllerPlace } from '../../../src/core/managed';
import { GcpApiError } from '../../../src/core/clouds/gcp/rest';
import { vmToken } from '../../support/fakes/gcpFake/metadata';
import type { FakeInstance } from '../../support/fakes/gcpFake/model';
import type { GcpBed } from './helpers';

export type CloudPlace = Extract<ControllerPlace, { kind: 'cloud' }>;

export const instancesOfUid = (bed: GcpBed, uid: string): FakeInstance[] =>
  [...bed.fake.model.instances.values()].filter((i) => i.labels[TAG_UID] === uid);

export async function launchGcpController(ctx: OpsContext, place: CloudPlace, name = controllerClusterName(place)): Promise<ClusterRecord> {
  const parsed = parseTaskText(controllerTaskText(place), 'controller.yaml');
  assert.ok(parsed.ok && parsed.tasks.length === 1);
  const existing = await ctx.store.read((db) => getCluster(db, name));
  return launchOnProvider(ctx, name, parsed.tasks[0], { cloud: 'gcp', autostop: { minutes: 10, down: false }, jobsController: true, existing });
}

/** The CLI on the controller VM: the VM's token, and the environment this machine gives it (controllerNodeEnv). */
export function controllerVmProvider(bed: GcpBed, ctx: OpsContext, ctl: ClusterRecord, region: string, zone: string) {
  const vm = instancesOfUid(bed, ctl.uid)[0];
  const auth = new OAuth2Client();
  auth.setCredentials({ access_token: vmToken(vm.zone as string, vm.name as string), expiry_date: Date.now() + 3600_000 });
  const env = ctx.providers!.get('gcp')!.controllerNodeEnv!(refOf(ctl));
  return bed.provider({ authClient: auth, env, catalogDir: fs.mkdtempSync(path.join(bed.dir, 'vm-catalog-')), zones: { [region]: [zone] } });
}

/** A call's answer: [200, ''] when allowed, else the API error's [HTTP status, message]. */
export const apiAnswer = (call: Promise<unknown>): Promise<[number, string]> => call.then(() => [200, ''] as [number, string], (e: unknown) => {
  assert.ok(e instanceof GcpApiError, String(e));
  return [e.httpStatusCode, e.message] as [number, string];
});
