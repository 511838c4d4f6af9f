// "setup changed → will re-run on dev" / "setup unchanged on dev → skipped at launch" on the
// `setup:` line (text from setupLens.ts). Informs only: the lens runs nothing.
import * as vscode from 'vscode';
import { setupLenses } from './setupLens';

export interface SetupLensSource {
  workspaceRoot(): string | undefined;
  /** The UP clusters, with the uid their setup record is kept under. */
  upClusters(): Promise<{ name: string; uid: string }[]>;
}

export class SetupCodeLensProvider implements vscode.CodeLensProvider, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeCodeLenses = this.changed.event;

  /** `asked`: the env answers Launch remembers (what it offers next), so the hash is the one launch will compute. */
  constructor(private readonly source: SetupLensSource, private readonly asked: () => Record<string, string> = () => ({})) {}

  refresh(): void {
    this.changed.fire();
  }

  async provideCodeLenses(document: vscode.TextDocument): Promise<vscode.CodeLens[]> {
    const root = this.source.workspaceRoot();
    if (!root) return [];
    const clusters = await this.source.upClusters().catch(() => []);
    return setupLenses(document.getText(), root, clusters, this.asked()).map((l) => new vscode.CodeLens(new vscode.Range(l.line, 0, l.line, 0), { title: l.title, command: '' }));
  }

  dispose(): void {
    this.changed.dispose();
  }
}
