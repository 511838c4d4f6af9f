import * as vscode from 'vscode';
import { checkClouds, credentialSharingLine, type CloudCheck } from '../../core/clouds/check';
import { loadSshPools } from '../../core/clouds/sshPools';
import { machineSetting } from '../settings';
import type { Command } from './command';
import { optionsArg } from './support/pickers';
import { notify } from '../notify';

/**
 * Check Clouds: which clouds Skydeck can use with the credentials on this machine, and for the
 * others exactly what to do. Picking a cloud that needs a fix copies the fix.
 */
export const checkCloudsCommand: Command<'log'> = {
  id: 'skydeck.checkClouds',
  async run(ctx, options) {
    const opts = optionsArg<{ only: string[]; show: boolean }>(options);
    const results = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: 'Skydeck: checking clouds…' },
      () => checkClouds({ only: opts.only, sshPools: () => loadSshPools(machineSetting('sshPools')) }),
    );
    for (const r of results) ctx.log.info(`check ${r.cloud}: ${r.ok ? 'ok' : 'not usable'}: ${r.detail}${r.fix ? ` (fix: ${r.fix})` : ''}`);
    ctx.log.info(`check ${credentialSharingLine(machineSetting<boolean>('storage.shareCredentials') === true)}`);
    if (opts.show === false) return results; // tests: no quick pick to answer
    const items = results.map((r) => ({
      label: `${r.ok ? '$(pass-filled)' : '$(error)'} ${r.cloud}`,
      description: r.ok ? 'enabled' : 'not usable',
      detail: r.ok ? r.detail : `${r.detail}${r.fix ? ` — fix: ${r.fix}` : ''}`,
      result: r,
    }));
    const enabled = results.filter((r) => r.ok).map((r) => r.cloud);
    const pick = await vscode.window.showQuickPick(items, {
      title: `Skydeck: ${enabled.length ? `enabled: ${enabled.join(', ')}` : 'no cloud is usable yet'}`,
      placeHolder: `Pick a cloud that is not usable to copy its fix. Bucket credential sharing: ${machineSetting<boolean>('storage.shareCredentials') === true ? 'on' : 'off'}`,
      matchOnDetail: true,
    });
    if (pick?.result.fix) await copyFix(pick.result);
    return results;
  },
};

async function copyFix(r: CloudCheck): Promise<void> {
  await vscode.env.clipboard.writeText(r.fix!);
  void notify.info(`Skydeck: copied the fix for ${r.cloud}: ${r.fix}`);
}
