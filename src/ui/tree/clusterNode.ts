import * as vscode from 'vscode';
import type { ClusterRecord } from '../../core/state';

const ICONS: Record<string, vscode.ThemeIcon> = {
  UP: new vscode.ThemeIcon('vm-running', new vscode.ThemeColor('testing.iconPassed')),
  INIT: new vscode.ThemeIcon('loading~spin'),
  STOPPED: new vscode.ThemeIcon('debug-pause', new vscode.ThemeColor('disabledForeground')),
};

export class ClusterNode extends vscode.TreeItem {
  constructor(readonly cluster: ClusterRecord) {
    super(cluster.name, vscode.TreeItemCollapsibleState.None);
    this.id = `cluster:${cluster.uid}`;
    this.iconPath = ICONS[cluster.status] ?? new vscode.ThemeIcon('question');
    this.description = [cluster.status, cluster.region, cluster.provider].filter(Boolean).join(' · ');
    this.contextValue = `cluster:${cluster.status.toLowerCase()}`;
    this.tooltip = new vscode.MarkdownString(
      [`**${cluster.name}** (${cluster.provider})`, `uid: \`${cluster.uid}\``, cluster.last_error ? `last error: ${cluster.last_error}` : '']
        .filter(Boolean)
        .join('\n\n'),
    );
  }
}
