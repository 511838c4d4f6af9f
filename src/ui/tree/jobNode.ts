import * as vscode from 'vscode';
import { TERMINAL_STATUSES, type JobRow } from '../../core/jobs/protocol';
import { jobDescription } from '../jobStatusText';

const ICONS: Record<string, vscode.ThemeIcon> = {
  INIT: new vscode.ThemeIcon('circle-outline'),
  PENDING: new vscode.ThemeIcon('clock'),
  SETTING_UP: new vscode.ThemeIcon('loading~spin'),
  RUNNING: new vscode.ThemeIcon('sync~spin', new vscode.ThemeColor('charts.blue')),
  SUCCEEDED: new vscode.ThemeIcon('pass', new vscode.ThemeColor('testing.iconPassed')),
  FAILED: new vscode.ThemeIcon('error', new vscode.ThemeColor('testing.iconFailed')),
  FAILED_SETUP: new vscode.ThemeIcon('error', new vscode.ThemeColor('testing.iconFailed')),
  FAILED_DRIVER: new vscode.ThemeIcon('warning', new vscode.ThemeColor('testing.iconFailed')),
  CANCELLED: new vscode.ThemeIcon('circle-slash', new vscode.ThemeColor('disabledForeground')),
};

/** contextValue token: menus only care whether the job can still be cancelled. */
export function jobContext(status: string): string {
  if (status === 'RUNNING' || status === 'SETTING_UP') return 'job:running';
  if (TERMINAL_STATUSES.has(status as JobRow['status'])) return 'job:done';
  return 'job:pending';
}

export class JobNode extends vscode.TreeItem {
  readonly kind = 'job';

  constructor(readonly cluster: string, readonly clusterUid: string, readonly job: JobRow, now = Date.now() / 1000) {
    super(`#${job.job_id} ${job.name ?? ''}`.trim(), vscode.TreeItemCollapsibleState.None);
    this.id = `job:${clusterUid}:${job.job_id}`;
    this.iconPath = ICONS[job.status] ?? new vscode.ThemeIcon('question');
    // The status in words too, not only as an icon: "RUNNING · 2m 3s", "FAILED (exit 1) · 4s".
    this.description = jobDescription({ status: job.status, exitCode: job.exit_code, reason: job.reason, startedAt: job.started_at, endedAt: job.ended_at, user: job.user }, now);
    this.contextValue = jobContext(job.status);
    this.tooltip = [`${job.status}${job.exit_code !== null ? ` (exit ${job.exit_code})` : ''}`, job.reason ?? ''].filter(Boolean).join('\n');
    // A click opens the log: the most common thing to want from a job.
    this.command = { command: 'skydeck.showLogs', title: 'Show Logs', arguments: [this] };
  }
}
