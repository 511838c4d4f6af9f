import * as path from 'node:path';
import * as vscode from 'vscode';
import { localSourcePath, type WorkdirMap } from './traceback';
import { realFileInside } from './realInside';

/**
 * A traceback path clicked in a job's log: mapped from the node's workdir to the local one the
 * task synced, checked (links resolved) to be a file inside it, and opened at the line. Anything
 * else is ignored: the page offers links only for paths it could map, so a miss is a forged message.
 */
export async function openSourceFromOutput(nodePath: string, line: number, map: WorkdirMap | undefined): Promise<boolean> {
  if (!map) return false;
  const local = localSourcePath(nodePath, map.nodeDir, map.localDir, path.sep as '/' | '\\');
  const file = local && realFileInside(local, map.localDir);
  if (!file) return false;
  const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(file));
  const at = Math.max(0, Math.min(line - 1, doc.lineCount - 1));
  await vscode.window.showTextDocument(doc, { selection: new vscode.Range(at, 0, at, 0), preview: true });
  return true;
}
