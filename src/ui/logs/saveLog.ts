import * as path from 'node:path';
import * as vscode from 'vscode';
import type { LogSession } from './logSession';
import { notify } from '../notify';

/** Asks where to save, then writes every byte the panel received (not just what scrollback holds). */
export async function saveLog(session: LogSession): Promise<void> {
  const { cluster, jobId } = session.key;
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
  const fileName = `${cluster}-job-${jobId}.log`.replace(/[\\/:*?"<>|]/g, '_');
  const target = await vscode.window.showSaveDialog({
    title: `Save log of ${cluster} #${jobId}`,
    defaultUri: folder ? vscode.Uri.joinPath(folder, fileName) : vscode.Uri.file(fileName),
    filters: { Logs: ['log', 'txt'], 'All files': ['*'] },
  });
  if (!target) return;
  let bytes: number;
  if (target.scheme === 'file') {
    bytes = await session.copyTo(target.fsPath);
  } else {
    // A remote or virtual target: go through VS Code's file system.
    const data = session.readAll();
    await vscode.workspace.fs.writeFile(target, data);
    bytes = data.length;
  }
  void notify.info(`Saved ${bytes.toLocaleString()} bytes to ${path.basename(target.path)}.`);
}
