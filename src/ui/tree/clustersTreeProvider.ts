import * as vscode from 'vscode';
import { ClusterNode } from './clusterNode';
import { JobNode } from './jobNode';
import type { ClustersModel } from './clustersModel';

export type ClustersTreeNode = ClusterNode | JobNode;

/** Draws the ClustersModel; reloading and polling are the model's and the poller's business. */
export class ClustersTreeProvider implements vscode.TreeDataProvider<ClustersTreeNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.changed.event;
  private loaded = false;
  private readonly unsubscribe: () => void;

  constructor(readonly model: ClustersModel) {
    this.unsubscribe = model.onDidChange(() => {
      this.loaded = true;
      this.changed.fire();
    });
  }

  async refresh(): Promise<void> {
    await this.model.reload();
  }

  getTreeItem(node: ClustersTreeNode): vscode.TreeItem {
    return node;
  }

  async getChildren(parent?: ClustersTreeNode): Promise<ClustersTreeNode[]> {
    if (parent instanceof JobNode) return [];
    if (parent instanceof ClusterNode) {
      return this.model.jobsOf(parent.cluster.name).map((j) => new JobNode(parent.cluster.name, parent.cluster.uid, j));
    }
    // First draw: nothing loaded yet (the poller may not have run if the view opened hidden).
    if (!this.loaded) await this.model.reload();
    return this.model.all.map((c) => new ClusterNode(c, this.model.errorOf(c.name), this.model.jobsOf(c.name).length > 0));
  }

  dispose(): void {
    this.unsubscribe();
    this.changed.dispose();
  }
}
