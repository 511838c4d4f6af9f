import * as vscode from 'vscode';
import type { LogSource } from './logSource';
import { LogSession, type LogSessionOptions } from './logSession';
import { panelHtml } from './panelHtml';
import { panelTitle, type JobKey } from './protocol';
import { saveLog } from './saveLog';
import { notify } from '../notify';
import { openLinkFromOutput } from './openLink';
import { testProbe } from '../testProbe';

/** One job's webview panel: the vscode wrapper around a LogSession. */
export class LogPanel implements vscode.Disposable {
  private readonly session: LogSession;
  private readonly subscriptions: vscode.Disposable[] = [];
  private disposed = false;
  private readonly disposeListeners: (() => void)[] = [];

  constructor(
    readonly panel: vscode.WebviewPanel,
    key: JobKey,
    source: LogSource,
    distUri: vscode.Uri,
    private readonly log: vscode.LogOutputChannel | undefined,
    opts: LogSessionOptions = {},
  ) {
    const webview = panel.webview;
    webview.options = { enableScripts: true, localResourceRoots: [distUri] };
    panel.title = panelTitle(key);
    this.session = new LogSession(
      key,
      source,
      (m) => void webview.postMessage(m),
      () => this.save(),
      { log: (m) => this.log?.warn(m), onOpenLink: (url) => void openLinkFromOutput(url), ...opts },
    );
    this.subscriptions.push(
      webview.onDidReceiveMessage((m) => this.session.handle(m)),
      // Without retained context a hidden page is torn down; it posts `ready` again when shown.
      panel.onDidChangeViewState(() => {
        if (!panel.visible) this.session.pageGone();
      }),
      panel.onDidDispose(() => this.dispose()),
    );
    webview.html = panelHtml({
      cspSource: webview.cspSource,
      scriptUri: webview.asWebviewUri(vscode.Uri.joinPath(distUri, 'webview', 'logs.js')).toString(),
      styleUri: webview.asWebviewUri(vscode.Uri.joinPath(distUri, 'webview', 'logs.css')).toString(),
      title: panel.title,
    });
    this.session.start();
    const session = this.session;
    testProbe()?.logPanels.push({
      title: panel.title, cluster: key.cluster, jobId: key.jobId, text: () => session.readAll().toString(), acknowledged: () => session.acknowledged,
    });
  }

  get key(): JobKey {
    return this.session.key;
  }

  onDidDispose(listener: () => void): void {
    this.disposeListeners.push(listener);
  }

  reveal(): void {
    this.panel.reveal(undefined, false);
  }

  private save(): void {
    saveLog(this.session).catch((e: Error) => {
      this.log?.error(`saving the log of ${panelTitle(this.key)} failed`, e);
      void notify.error(`Skydeck: could not save the log: ${e.message}`);
    });
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    // Aborts the follow: closing the panel stops streaming, the job keeps running.
    this.session.dispose();
    for (const s of this.subscriptions.splice(0)) s.dispose();
    this.panel.dispose();
    for (const l of this.disposeListeners.splice(0)) l();
  }
}
