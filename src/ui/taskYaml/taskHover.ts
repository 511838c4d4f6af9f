// Hover on a task YAML key: its JSON Schema description (see fieldDescriptions.ts), and on a
// file_mounts entry or git workdir also what will happen to it (mountEntries.ts).

import * as vscode from 'vscode';
import { taskHoverMarkdown } from './hoverText';

export class TaskHoverProvider implements vscode.HoverProvider {
  provideHover(document: vscode.TextDocument, position: vscode.Position): vscode.Hover | undefined {
    const text = document.getText();
    const offset = document.offsetAt(position);
    const found = taskHoverMarkdown(text, offset);
    if (!found) return undefined;
    // Untrusted by default (no command links): the text quotes the workspace's own YAML.
    const md = new vscode.MarkdownString(found.markdown);
    return new vscode.Hover(md, new vscode.Range(document.positionAt(found.start), document.positionAt(found.end)));
  }
}
