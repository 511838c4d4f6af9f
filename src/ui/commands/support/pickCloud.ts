import * as vscode from 'vscode';
import { checkClouds, type CloudCheck } from '../../../core/clouds/check';
import { loadSshPools } from '../../../core/clouds/sshPools';
import { machineSetting } from '../../settings';
import { namesCloud, parseTaskFile } from '../../../core/task';
import { Dismissed } from './pickers';
import { KEEP_OPEN } from './promptOptions';

export interface CloudChoice {
  cloud: string;
  region?: string;
}

/**
 * A task that names no cloud, launched on a new cluster: pick one of the clouds the credentials
 * on this machine reach (and a region where the cloud lists them). Undefined: nothing to ask
 * (the task names a cloud, or its YAML has errors that launch will report with positions).
 */
export async function pickCloudFor(taskFile: string): Promise<CloudChoice | undefined> {
  const parsed = await parseTaskFile(taskFile);
  const task = parsed.tasks[0];
  if (!parsed.ok || !task || namesCloud(task.resources)) return undefined;
  const checks = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: 'Skydeck: the task names no cloud; checking which clouds are enabled…' },
    () => checkClouds({ sshPools: () => loadSshPools(machineSetting('sshPools')) }),
  );
  const enabled = checks.filter((c) => c.ok);
  if (enabled.length <= 1) return enabled[0] ? { cloud: enabled[0].cloud } : undefined;
  const pick = await vscode.window.showQuickPick(
    enabled.map((c) => ({ label: c.cloud, description: c.detail, check: c })),
    { title: 'Skydeck: the task names no cloud — launch it on', placeHolder: 'Enabled clouds (Skydeck: Check Clouds tells how to enable others)', ...KEEP_OPEN },
  );
  if (!pick) throw new Dismissed();
  return { cloud: pick.check.cloud, region: await pickRegion(pick.check) };
}

async function pickRegion(c: CloudCheck): Promise<string | undefined> {
  const regions = c.regions ?? [];
  if (regions.length <= 1) return regions[0];
  const pick = await vscode.window.showQuickPick(regions, { title: `Skydeck: which ${c.cloud} region?`, ...KEEP_OPEN });
  if (!pick) throw new Dismissed();
  return pick;
}
