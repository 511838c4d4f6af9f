import * as vscode from 'vscode';
import { ClusterNode } from './clusterNode';
import { JobNode } from './jobNode';
import type { ClustersModel } from './clustersModel';
import { LeakedGroupNode, LeakedIdentityNode, LeakedInstanceNode, LeakSweepErrorNode, OtherWorkspacesNode } from './leakNodes';
import type { LeakEntry } from './leaksModel';
import { BucketNode, StorageErrorNode, StorageGroupNode } from './storageNodes';
import type { StorageEntry } from './storageModel';
import { ManagedErrorNode, ManagedGroupNode, ManagedJobNode } from './managedNodes';
import type { ManagedEntry } from './managedJobsModel';
import { otherFoldersNode, type OtherFolderNode, type OtherFoldersNode } from './otherFoldersNode';

// The node classes are small and import only vscode and a few core types, so they are built into
// the activation bundle with this provider. Commands recognise a node by its `kind` field, never
// by instanceof: they run from the lazily loaded core chunk, a separate copy of any class.
export type ClustersTreeNode = ClusterNode | JobNode | LeakedGroupNode | OtherWorkspacesNode | LeakedInstanceNode | LeakSweepErrorNode
  | LeakedIdentityNode | StorageGroupNode | BucketNode | StorageErrorNode | ManagedGroupNode | ManagedJobNode | ManagedErrorNode | OtherFoldersNode | OtherFolderNode;

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
    if (parent?.kind === 'other-folders') return parent.children();
    switch (parent?.kind) {
      case 'job':
      case 'leak':
      case 'leak-error':
      case 'leak-identity':
      case 'bucket':
      case 'storage-error':
      case 'managed-job':
      case 'managed-error':
      case 'other-folder':
        return [];
      case 'managed':
        return this.model.managed.entries().map(managedNode);
      case 'storage':
        return this.model.storage.entries().map(storageNode);
      case 'cluster': {
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
    const nodes: ClustersTreeNode[] = this.model.all.map((c) => new ClusterNode(c, this.model.errorOf(c.name), this.model.jobsOf(c.name).length > 0, this.model.costOf(c.uid)));
    const others = otherFoldersNode(this.model.cost);
    if (others) nodes.push(others);
    // After the clusters: the sweep's findings stay visible until the next sweep or termination.
    if (this.model.managed.visible) nodes.push(new ManagedGroupNode(this.model.managed.summary));
    if (this.model.storage.visible) nodes.push(new StorageGroupNode(this.model.storage.summary));
    if (this.model.leaks.visible) nodes.push(new LeakedGroupNode(this.model.leaks.summary, this.model.leaks.identities().length > 0));
    return nodes;
  }

  private leakNode(e: LeakEntry): ClustersTreeNode {
    switch (e.kind) {
      case 'leak':
        return new LeakedInstanceNode(e.leak, e.otherWorkspace);
      case 'other-workspaces':
        return new OtherWorkspacesNode(e.leaks.length);
      case 'leak-error':
        return new LeakSweepErrorNode(e.cloud, e.message, e.label);
      case 'identity':
        return new LeakedIdentityNode(e.identity);
    }
  }

  dispose(): void {
    this.unsubscribe();
    this.changed.dispose();
  }
}

function storageNode(e: StorageEntry): ClustersTreeNode {
  return e.kind === 'bucket' ? new BucketNode(e.bucket) : new StorageErrorNode(e.message);
}

function managedNode(e: ManagedEntry): ClustersTreeNode {
  return e.kind === 'managed-job' ? new ManagedJobNode(e.view) : new ManagedErrorNode(e.message);
}
