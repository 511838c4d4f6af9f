import * as vscode from 'vscode';
import type { CostView } from '../../core/cost/costView';

// "3 clusters in other folders still billing $4.12/h", from the per-user index
// (core/cost/userIndex.ts); each folder child opens that folder in a new window, where its
// own Clusters view can stop or down them. Names and paths come from files anyone may write:
// they are shown as labels and passed as a Uri, never as Markdown or a command string.

type Others = CostView['others'];

export class OtherFolderNode extends vscode.TreeItem {
  readonly kind = 'other-folder';

  constructor(readonly folder: string, clusters: string[], usdPerHour: number) {
    super(folder, vscode.TreeItemCollapsibleState.None);
    this.description = `${clusters.length} cluster(s) · $${usdPerHour.toFixed(2)}/h`;
    this.tooltip = `${clusters.join(', ')}\nClick to open this folder in a new window.`;
    this.iconPath = new vscode.ThemeIcon('folder');
    this.command = { title: 'Open Folder', command: 'vscode.openFolder', arguments: [vscode.Uri.file(folder), { forceNewWindow: true }] };
  }
}

export class OtherFoldersNode extends vscode.TreeItem {
  readonly kind = 'other-folders';

  constructor(private readonly others: Others) {
    super(otherFoldersLabel(others), vscode.TreeItemCollapsibleState.Collapsed);
    this.id = 'other-folders';
    this.iconPath = new vscode.ThemeIcon('warning', new vscode.ThemeColor('list.warningForeground'));
    this.tooltip = 'Clusters launched from other folders (the per-user index in ~/.skydeck/index). Open a folder to stop or down them.';
  }

  children(): OtherFolderNode[] {
    return this.others.workspaces.map((w) => new OtherFolderNode(w.folder, w.clusters, w.usdPerHour));
  }
}

/** "3 clusters in other folders still billing $4.12/h" (+ "and 1 of unknown price"). */
export function otherFoldersLabel(o: Others): string {
  const n = o.clusters;
  return `${n} cluster${n === 1 ? '' : 's'} in other folders still billing $${o.usdPerHour.toFixed(2)}/h${o.unknown ? ` (+${o.unknown} of unknown price)` : ''}`;
}

export function otherFoldersNode(view: CostView | undefined): OtherFoldersNode | undefined {
  return view && view.others.clusters > 0 ? new OtherFoldersNode(view.others) : undefined;
}
