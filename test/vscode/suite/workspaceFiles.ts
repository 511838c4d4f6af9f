import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';

/** Writes `text` to `name` in the test workspace's first folder. */
export async function writeFile(name: string, text: string): Promise<vscode.Uri> {
  const folder = vscode.workspace.workspaceFolders?.[0];
  assert.ok(folder, 'the test workspace has no folder');
  const uri = vscode.Uri.joinPath(folder.uri, name);
  await vscode.workspace.fs.writeFile(uri, Buffer.from(text, 'utf8'));
  return uri;
}
