import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Command } from './command';

/**
 * New Example Task (the walkthrough's first step): copies the shipped hello.sky.yaml into the
 * workspace, never over an existing file, and opens it so its ▶ Launch lens is one click away.
 */
export const openExampleTask: Command<never> = {
  id: 'skydeck.openExampleTask',
  async run() {
    const self = vscode.extensions.getExtension('skydeck.skydeck');
    if (!self) throw new Error('cannot find the Skydeck extension\'s own files');
    const shipped = vscode.Uri.joinPath(self.extensionUri, 'examples', 'hello.sky.yaml');
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
    let target = shipped;
    if (folder?.scheme === 'file') {
      const file = path.join(folder.fsPath, 'hello.sky.yaml');
      try {
        await fs.copyFile(shipped.fsPath, file, fs.constants.COPYFILE_EXCL);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      }
      target = vscode.Uri.file(file);
    }
    await vscode.window.showTextDocument(target);
    return target;
  },
};
