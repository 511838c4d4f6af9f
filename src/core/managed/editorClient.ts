// The editor's client of the managed-jobs controller. Where the controller runs comes from the
// same setting the CLI reads ($SKYDECK_JOBS_CONTROLLER, jobs.controller in ~/.skydeck/config.yaml),
// so the editor and the CLI always see the same jobs. A controller cluster is reached with the
// extension's own CLI bundle (dist/cli.js) and launched only by a submit: a look never bills.
import type { OpsContext } from '../ops';
import type { ManagedJobsClient } from './client';
import { openLocalClient, type CliEntry } from './localHome';
import { openRemoteClient } from './remote/open';
import { cliBundle } from './remote/bundle';
import { readControllerSetting } from './remote/setting';

export interface EditorClientOptions {
  /** How this process runs the bundled CLI (the local controller is started with it). */
  entry: CliEntry;
  /** dist/cli-main.js (the full CLI): the bundle a controller cluster is given. */
  entryFile: string;
  /** An OpsContext over the controller home, where the controller cluster's row lives. */
  ops: () => Promise<OpsContext>;
  /** true for a submit: a controller cluster not launched yet is launched. */
  launch?: boolean;
}

export async function openEditorClient(home: string, o: EditorClientOptions): Promise<ManagedJobsClient> {
  // A bad value is an error naming where it came from (never a silent fallback to this machine).
  const setting = readControllerSetting();
  if (setting.place.kind === 'this-machine') return openLocalClient(home, o.entry);
  return openRemoteClient(await o.ops(), setting.place, { bundle: cliBundle(o.entryFile), launch: o.launch ?? false, copyCredentials: setting.copyCredentials, editor: true, idleMinutes: setting.idleMinutes });
}

/** Where the controller runs, in words for a confirmation; a bad setting throws as above. */
export function controllerPlace(): string {
  const { place } = readControllerSetting();
  if (place.kind === 'this-machine') return 'on this machine';
  if (place.kind === 'local-cluster') return 'on a local controller cluster';
  if (place.kind === 'cloud') return `on a controller VM on ${place.cloud}${place.region ? ` (${place.region})` : ''}, which stops itself once no managed job is active`;
  return `on a controller cluster in the ssh pool "${place.pool}" (it keeps running when this machine is off)`;
}
