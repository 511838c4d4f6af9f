import * as vscode from 'vscode';
import type { ClusterNode } from './clusterNode';
import type { JobNode } from './jobNode';
import type { ClustersModel } from './clustersModel';

export type ClustersTreeNode = ClusterNode | JobNode;

/**
 * The node classes, handed in rather than imported: they are built into the lazily loaded core
 * chunk together with the commands that test `instanceof` on them (see src/extensionCore.ts),
 * and this provider is created at activation, before that chunk is loaded.
 */
export interface TreeNodeClasses {
  ClusterNode: typeof ClusterNode;
  JobNode: typeof JobNode;
}

/** Draws the ClustersModel; reloading and polling are the model's and the poller's business. */
export class ClustersTreeProvider implements vscode.TreeDataProvider<ClustersTreeNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.changed.event;
  private loaded = false;
  private readonly unsubscribe: () => void;

  constructor(readonly model: ClustersModel, private readonly nodes: () => TreeNodeClasses) {
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
    if (parent?.kind === 'job') return [];
    if (parent?.kind === 'cluster') {
      const { JobNode } = this.nodes();
      const { name, uid } = parent.cluster;
      return this.model.jobsOf(name).map((j) => new JobNode(name, uid, j));
    }
    // First draw: nothing loaded yet (the poller may not have run if the view opened hidden).
    if (!this.loaded) await this.model.reload();
    const { ClusterNode } = this.nodes();
    return this.model.all.map((c) => new ClusterNode(c, this.model.errorOf(c.name), this.model.jobsOf(c.name).length > 0));
  }

  dispose(): void {
    this.unsubscribe();
    this.changed.dispose();
  }
}
