// Hover on a task YAML key: its JSON Schema description (see fieldDescriptions.ts).

import * as vscode from 'vscode';
import { describeFieldAt } from './fieldDescriptions';

export class TaskHoverProvider implements vscode.HoverProvider {
  provideHover(document: vscode.TextDocument, position: vscode.Position): vscode.Hover | undefined {
    const found = describeFieldAt(document.getText(), document.offsetAt(position));
    if (!found) return undefined;
    const md = new vscode.MarkdownString();
    md.appendMarkdown('**');
    md.appendText(found.path);
    md.appendMarkdown('**\n\n');
    // Schema descriptions are written with `code` spans, so they are Markdown already.
    md.appendMarkdown(found.description);
    return new vscode.Hover(md, new vscode.Range(document.positionAt(found.start), document.positionAt(found.end)));
  }
}
