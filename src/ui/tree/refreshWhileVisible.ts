import * as vscode from 'vscode';

/**
 * Polls while the view is visible and not at all otherwise (as vscode-docker does): a hidden
 * view costs no SSH traffic. Triggers (becoming visible, the timer) are debounced so a quick
 * hide/show does not stack reloads.
 */
export class RefreshWhileVisible implements vscode.Disposable {
  private timer: NodeJS.Timeout | undefined;
  private debounce: NodeJS.Timeout | undefined;
  private readonly subscriptions: vscode.Disposable[] = [];

  constructor(
    private readonly view: vscode.TreeView<unknown>,
    private readonly refresh: () => Promise<void>,
    private readonly onError: (e: Error) => void,
    private readonly debounceMs = 250,
  ) {
    this.subscriptions.push(
      view.onDidChangeVisibility(() => this.update()),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('skydeck.refreshIntervalSeconds')) this.update(true);
      }),
    );
    this.update();
  }

  private update(restart = false): void {
    if (!this.view.visible) {
      this.stop();
      return;
    }
    if (this.timer && !restart) return;
    this.stop();
    this.schedule();
    const seconds = Math.max(2, vscode.workspace.getConfiguration('skydeck').get<number>('refreshIntervalSeconds') ?? 10);
    this.timer = setInterval(() => this.schedule(), seconds * 1000);
  }

  private schedule(): void {
    if (this.debounce) return;
    this.debounce = setTimeout(() => {
      this.debounce = undefined;
      this.refresh().catch((e) => this.onError(e as Error));
    }, this.debounceMs);
  }

  private stop(): void {
    if (this.timer) clearInterval(this.timer);
    if (this.debounce) clearTimeout(this.debounce);
    this.timer = this.debounce = undefined;
  }

  dispose(): void {
    this.stop();
    this.subscriptions.forEach((d) => d.dispose());
  }
}
