import * as vscode from 'vscode';
import { notify } from '../notify';
import { isWebUrl } from './protocol';

/**
 * A link clicked in a job's output: the job chose it, so the user sees the whole address and
 * confirms (modal) before it is opened; anything but http(s) was refused by the page already
 * and is refused here again.
 */
export async function openLinkFromOutput(url: string): Promise<void> {
  if (!isWebUrl(url)) return;
  const pick = await notify.warning('Open a link from the job\'s output?', { modal: true, detail: url }, 'Open');
  if (pick === 'Open') await vscode.env.openExternal(vscode.Uri.parse(url, true));
}
