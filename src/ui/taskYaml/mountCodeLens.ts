// A CodeLens on each file_mounts line and on the workdir (a local one: the folder it resolves to): where the data comes from and what
// happens to it ("s3 bucket ckpt · MOUNT · created by Skydeck if missing · deleted at down").
// The text is built in mountText.ts; these lenses inform and run nothing (no command).

import * as vscode from 'vscode';
import { mountEntries } from './mountEntries';
import { taskPathBase } from '../commands/support/taskPathBase';

export class MountCodeLensProvider implements vscode.CodeLensProvider {
  provideCodeLenses(document: vscode.TextDocument): vscode.CodeLens[] {
    return mountEntries(document.getText(), taskPathBase(document.uri)).map((e) => {
      const at = new vscode.Range(e.line, e.col, e.line, e.col);
      // An empty command id makes a lens plain text: nothing to click, nothing run.
      return new vscode.CodeLens(at, { title: e.lens, command: '' });
    });
  }
}
