import * as vscode from 'vscode';
import { notify } from './notify';
import { endNotice } from './jobStatusText';
import type { JobEnd, JobEvents } from './jobEvents';
import type { ClustersModel } from './tree/clustersModel';

export const SHOW_LOGS = 'Show Logs';
export const RE_RUN = 'Re-run';

/**
 * Tells how a job launched or exec'd from this window ended, once: the log panel, the watch and
 * a poll may all learn of the same end, and the first one forgets the job (JobEvents.forget).
 * Jobs started elsewhere (the CLI, another window) are shown in the tree, never announced here.
 */
export class JobEndNotifier implements vscode.Disposable {
  private readonly off: () => void;

  constructor(private readonly events: JobEvents, private readonly model: ClustersModel) {
    this.off = events.onEnd((e) => this.onEnd(e));
  }

  private onEnd(e: JobEnd): void {
    const job = this.events.launchedJob(e.cluster, e.jobId);
    if (!job) return;
    this.events.forget(e.cluster, e.jobId);
    // A Cancel from this window already said "cancelled" itself.
    if (e.source === 'cancel') return;
    const name = job.name ?? this.model.job(e.cluster, e.jobId)?.name ?? undefined;
    const n = endNotice(`${e.cluster} #${e.jobId}${name ? ` ${name}` : ''}`, e);
    void notify[n.level](n.message, SHOW_LOGS, RE_RUN).then((pick) => {
      if (pick === SHOW_LOGS) {
        void vscode.commands.executeCommand('skydeck.showLogs', { cluster: e.cluster, jobId: e.jobId, name });
      } else if (pick === RE_RUN) {
        // The same task on the same cluster, through Exec (which records the new job in turn).
        void vscode.commands.executeCommand('skydeck.execTask', undefined, { cluster: e.cluster, taskFile: vscode.Uri.file(job.taskFile) });
      }
    });
  }

  dispose(): void {
    this.off();
  }
}
