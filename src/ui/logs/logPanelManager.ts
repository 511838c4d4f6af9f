import * as vscode from 'vscode';
import { LogPanel } from './logPanel';
import type { LogFinal, LogSource } from './logSource';
import type { WorkdirMap } from './traceback';
import { openSourceFromOutput } from './openSource';
import { keyId, LOGS_VIEW_TYPE, panelTitle, parsePanelState, type JobKey } from './protocol';

/** Builds the source for a job when a panel is restored after a window reload. */
export type LogSourceFactory = (key: JobKey) => LogSource | Promise<LogSource>;

/** What the window adds to each job's panel (managed jobs' panels get none of it). */
export interface PanelHooks {
  /** A panel's follow saw its job end. */
  onJobEnded?: (key: JobKey, final: LogFinal) => void;
  /** The job's workdir on its node and here, when known (traceback links). */
  workdirOf?: (key: JobKey) => WorkdirMap | undefined;
}

/**
 * One log panel per job. open() reveals the job's panel if there is one; the serializer hands
 * panels restored after a reload to restore().
 *
 * A restored panel follows again from byte 0 and its page starts empty: VS Code does not keep
 * a webview's DOM across reloads, so resuming at the saved offset would show only later output
 * and Save would miss the start. The head node's log is append-only and read by offset, so a
 * replay is exact; the page is sent at most the newest 16 MB (LogSession's replay tail).
 */
export class LogPanelManager implements vscode.Disposable {
  private readonly panels = new Map<string, LogPanel>();

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly sourceFor: LogSourceFactory,
    private readonly log?: vscode.LogOutputChannel,
    private readonly hooks: PanelHooks = {},
  ) {}

  open(key: JobKey, source: LogSource): void {
    const existing = this.panels.get(keyId(key));
    if (existing) {
      existing.reveal();
      return;
    }
    const panel = vscode.window.createWebviewPanel(LOGS_VIEW_TYPE, panelTitle(key), vscode.ViewColumn.Active, {
      enableScripts: true,
      localResourceRoots: [this.distUri],
      enableFindWidget: false, // the page has its own search over the terminal buffer
    });
    this.track(new LogPanel(panel, key, source, this.distUri, this.log, this.sessionOptions(key)));
  }

  /** Another rank of a multi-node job, from the page's rank selector: its own panel. */
  openRank(key: JobKey, rank: number): void {
    const other: JobKey = { cluster: key.cluster, jobId: key.jobId, name: key.name, ...(rank ? { rank } : {}) };
    this.open(other, this.lazySource(other));
  }

  /** For the serializer: `state` is what the page saved with setState. */
  restore(panel: vscode.WebviewPanel, state: unknown): Promise<void> {
    const saved = parsePanelState(state);
    if (!saved) {
      // Nothing to follow (state from an incompatible version): close rather than show a blank tab.
      panel.dispose();
      return Promise.resolve();
    }
    const key: JobKey = { cluster: saved.cluster, jobId: saved.jobId, name: saved.name, ...(saved.rank ? { rank: saved.rank } : {}), ...(saved.managed ? { managed: true } : {}) };
    if (this.panels.has(keyId(key))) {
      panel.dispose(); // already open (opened again before the restore ran)
      return Promise.resolve();
    }
    this.track(new LogPanel(panel, key, this.lazySource(key), this.distUri, this.log, this.sessionOptions(key)));
    return Promise.resolve();
  }

  /** Resolved on each follow, so when the cluster cannot be reached yet the page's Retry tries again. */
  private lazySource(key: JobKey): LogSource {
    return { follow: async (...args) => (await this.sourceFor(key)).follow(...args) };
  }

  private sessionOptions(key: JobKey) {
    const { onJobEnded, workdirOf } = this.hooks;
    if (key.managed) return { onOpenRank: (rank: number) => this.openRank(key, rank) };
    return {
      onOpenRank: (rank: number) => this.openRank(key, rank),
      onEnded: (final: LogFinal) => onJobEnded?.(key, final),
      sourceRoot: () => workdirOf?.(key)?.nodeDir,
      onOpenSource: (nodePath: string, line: number) => void openSourceFromOutput(nodePath, line, workdirOf?.(key)).catch(
        (e: Error) => this.log?.warn(`opening ${nodePath}:${line} from the log failed: ${e.message}`)),
    };
  }

  get openPanels(): readonly JobKey[] {
    return [...this.panels.values()].map((p) => p.key);
  }

  dispose(): void {
    for (const p of [...this.panels.values()]) p.dispose();
    this.panels.clear();
  }

  private get distUri(): vscode.Uri {
    return vscode.Uri.joinPath(this.extensionUri, 'dist');
  }

  private track(panel: LogPanel): void {
    const id = keyId(panel.key);
    this.panels.set(id, panel);
    panel.onDidDispose(() => {
      if (this.panels.get(id) === panel) this.panels.delete(id);
    });
  }
}
