import * as vscode from 'vscode';
import type { ManagedJobView } from '../../core/managed/jobViews';
import type { ManagedStatus } from '../../core/managed/states';
import { isEnded, managedJobDescription, managedJobTooltip } from './managedJobsModel';

const ICONS: Record<ManagedStatus, [string, string?]> = {
  PENDING: ['clock'], STARTING: ['loading~spin'], RUNNING: ['sync~spin', 'charts.blue'], RECOVERING: ['debug-restart', 'charts.orange'],
  SUCCEEDED: ['pass', 'testing.iconPassed'], FAILED: ['error', 'testing.iconFailed'], FAILED_SETUP: ['error', 'testing.iconFailed'],
  FAILED_NO_RESOURCE: ['error', 'testing.iconFailed'], FAILED_CONTROLLER: ['warning', 'testing.iconFailed'],
  CANCELLING: ['loading~spin', 'disabledForeground'], CANCELLED: ['circle-slash', 'disabledForeground'],
};

/** "Managed jobs": each on its own cluster, run by the controller; shown once there is one. */
export class ManagedGroupNode extends vscode.TreeItem {
  readonly kind = 'managed';

  constructor(summary: string) {
    super('Managed jobs', vscode.TreeItemCollapsibleState.Expanded);
    this.id = 'managed';
    this.iconPath = new vscode.ThemeIcon('server-process');
    this.description = summary;
    this.contextValue = 'managed';
    this.tooltip = 'Jobs run by the managed-jobs controller, each on its own cluster, recovered when preempted.';
  }
}

/** One managed job; a click opens its log, its menu has Cancel while it has not ended. */
export class ManagedJobNode extends vscode.TreeItem {
  readonly kind = 'managed-job';

  constructor(readonly view: ManagedJobView, now = Date.now()) {
    super(`#${view.job.id} ${view.job.name}`, vscode.TreeItemCollapsibleState.None);
    const s = view.job.status;
    this.id = `managed-job:${view.job.id}`;
    const [icon, color] = ICONS[s];
    this.iconPath = new vscode.ThemeIcon(icon, color ? new vscode.ThemeColor(color) : undefined);
    this.description = managedJobDescription(view, now);
    this.tooltip = managedJobTooltip(view);
    // Cancellable until it has ended; a requested cancel is not asked for twice.
    this.contextValue = isEnded(s) ? 'managedJob:ended' : view.job.cancelRequested || s === 'CANCELLING' ? 'managedJob:cancelling' : 'managedJob:active';
    this.command = { command: 'skydeck.showManagedJobLogs', title: 'Show Managed Job Logs', arguments: [this] };
  }
}

export class ManagedErrorNode extends vscode.TreeItem {
  readonly kind = 'managed-error';

  constructor(readonly message: string) {
    super('managed jobs: problem', vscode.TreeItemCollapsibleState.None);
    this.id = `managed-error:${message}`;
    this.iconPath = new vscode.ThemeIcon('error', new vscode.ThemeColor('errorForeground'));
    this.description = message;
    this.contextValue = 'managed-error';
    this.tooltip = message;
  }
}
