import * as vscode from 'vscode';
import { Services } from './ui/services';
import { registerCommands } from './ui/commands/registerCommands';
import { ClustersModel } from './ui/tree/clustersModel';
import { ClustersTreeProvider } from './ui/tree/clustersTreeProvider';

/** Composition root: build the services and register the UI; nothing else. */
export function activate(context: vscode.ExtensionContext): void {
  const services = new Services(context);
  const clusters = new ClustersTreeProvider(new ClustersModel(() => services.state()));
  context.subscriptions.push(
    services,
    clusters,
    vscode.window.createTreeView('skydeck.clusters', { treeDataProvider: clusters, showCollapseAll: true }),
    ...registerCommands({ services, clusters }),
  );
}

export function deactivate(): void {}
