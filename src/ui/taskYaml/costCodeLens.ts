// On the `resources:` line: what launch would pick and pay ("g5.xlarge us-east-1 · $1.01/h ×2 =
// $2.01/h · 3 cheaper alternatives", costText.ts costLens), which opens the whole plan in a
// quick pick, and "Browse GPUs…", which sets `accelerators:` from the catalog.

import * as vscode from 'vscode';
import { costLens } from './costText';

export class CostCodeLensProvider implements vscode.CodeLensProvider {
  provideCodeLenses(document: vscode.TextDocument): vscode.CodeLens[] {
    const lens = costLens(document.getText());
    if (!lens) return [];
    const at = new vscode.Range(lens.line, 0, lens.line, 0);
    return [
      new vscode.CodeLens(at, { title: `$(credit-card) ${lens.title}`, tooltip: 'Skydeck: the launch plan, with every price\'s source', command: 'skydeck.showLaunchPlan', arguments: [document.uri] }),
      new vscode.CodeLens(at, { title: 'Browse GPUs…', command: 'skydeck.browseGpus', arguments: [document.uri] }),
    ];
  }
}
