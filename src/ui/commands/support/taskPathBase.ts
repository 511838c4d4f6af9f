import * as path from 'node:path';
import * as vscode from 'vscode';
import { localUploadLines } from '../../../core/ops';
import { parseTaskFile } from '../../../core/task';
import { notify } from '../../notify';
import { Dismissed } from './pickers';

/**
 * Where a task's relative workdir and file_mounts sources resolve from the editor: the
 * workspace folder holding the YAML (where its user would run `sky`); a file outside every
 * folder: its own folder.
 */
export function taskPathBase(uri: vscode.Uri): string {
  return vscode.workspace.getWorkspaceFolder(uri)?.uri.fsPath ?? path.dirname(uri.fsPath);
}

/**
 * Before an interactive launch/exec: says which local folders and files will be uploaded, as
 * resolved, and asks to go on. Nothing to upload (or a task that does not parse, which the
 * launch reports): no question.
 */
export async function confirmUploads(file: string, base: string, what: string): Promise<void> {
  const task = (await parseTaskFile(file)).tasks[0];
  const lines = task ? localUploadLines(task, base) : [];
  if (!lines.length) return;
  const pick = await notify.info(`${what}: these are uploaded from this machine. Go on?`, {
    modal: true,
    detail: `${lines.join('\n')}\n\nRelative paths resolve against the workspace folder ${base}, as sky resolves them against the folder it runs in.`,
  }, 'Go on');
  if (pick !== 'Go on') throw new Dismissed();
}
