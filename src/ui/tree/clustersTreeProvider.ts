import * as vscode from 'vscode';
import type { ClusterNode } from './clusterNode';
import type { JobNode } from './jobNode';
import type { ClustersModel } from './clustersModel';
import type { LeakedGroupNode, LeakedInstanceNode, LeakSweepErrorNode, OtherWorkspacesNode } from './leakNodes';
import type { LeakEntry } from './leaksModel';

export type ClustersTreeNode = ClusterNode | JobNode | LeakedGroupNode | OtherWorkspacesNode | LeakedInstanceNode | LeakSweepErrorNode;

/**
 * The node classes, handed in rather than imported: they are built into the lazily loaded core
 * chunk together with the commands that test `instanceof` on them (see src/extensionCore.ts),
 * and this provider is created at activation, before that chunk is loaded.
 */
export interface TreeNodeClasses {
  ClusterNode: typeof ClusterNode;
  JobNode: typeof JobNode;
}

/** The leak sweep's node classes; optional so a tree that never sweeps (benches) can omit them. */
export interface LeakNodeClasses {
  LeakedGroupNode: typeof LeakedGroupNode;
  OtherWorkspacesNode: typeof OtherWorkspacesNode;
  LeakedInstanceNode: typeof LeakedInstanceNode;
  LeakSweepErrorNode: typeof LeakSweepErrorNode;
}

/** Draws the ClustersModel; reloading and polling are the model's and the poller's business. */
export class ClustersTreeProvider implements vscode.TreeDataProvider<ClustersTreeNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.changed.event;
  private loaded = false;
  private readonly unsubscribe: () => void;

  constructor(readonly model: ClustersModel, private readonly nodes: () => TreeNodeClasses & Partial<LeakNodeClasses>) {
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
    switch (parent?.kind) {
      case 'job':
      case 'leak':
      case 'leak-error':
        return [];
      case 'cluster': {
        const { JobNode } = this.nodes();
        const { name, uid } = parent.cluster;
        return this.model.jobsOf(name).map((j) => new JobNode(name, uid, j));
      }
      case 'leaks':
        return this.model.leaks.entries().map((e) => this.leakNode(e));
      case 'leaks-other':
        return this.model.leaks.otherEntries().map((e) => this.leakNode(e));
    }
    // First draw: nothing loaded yet (the poller may not have run if the view opened hidden).
    if (!this.loaded) await this.model.reload();
    const { ClusterNode, LeakedGroupNode } = this.nodes();
    const nodes: ClustersTreeNode[] = this.model.all.map((c) => new ClusterNode(c, this.model.errorOf(c.name), this.model.jobsOf(c.name).length > 0));
    // After the clusters: the sweep's findings stay visible until the next sweep or termination.
    if (this.model.leaks.visible && LeakedGroupNode) nodes.push(new LeakedGroupNode(this.model.leaks.summary));
    return nodes;
  }

  private leakNode(e: LeakEntry): ClustersTreeNode {
    // Only reached under a LeakedGroupNode, which exists only when these classes were given.
    const n = this.nodes() as TreeNodeClasses & LeakNodeClasses;
    switch (e.kind) {
      case 'leak':
        return new n.LeakedInstanceNode(e.leak, e.otherWorkspace);
      case 'other-workspaces':
        return new n.OtherWorkspacesNode(e.leaks.length);
      case 'leak-error':
        return new n.LeakSweepErrorNode(e.cloud, e.message, e.label);
    }
  }

  dispose(): void {
    this.unsubscribe();
    this.changed.dispose();
  }
}
