import * as vscode from 'vscode';
import { ClusterNode } from './clusterNode';
import type { ClustersModel } from './clustersModel';

export class ClustersTreeProvider implements vscode.TreeDataProvider<ClusterNode> {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.changed.event;

  constructor(private readonly model: ClustersModel) {}

  async refresh(): Promise<void> {
    await this.model.reload();
    this.changed.fire();
  }

  getTreeItem(node: ClusterNode): vscode.TreeItem {
    return node;
  }

  async getChildren(parent?: ClusterNode): Promise<ClusterNode[]> {
    if (parent) return [];
    await this.model.reload();
    return this.model.all.map((c) => new ClusterNode(c));
  }

  dispose(): void {
    this.changed.dispose();
  }
}
