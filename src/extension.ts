import * as vscode from 'vscode';
import { listClusters } from './core/state';
import { queue } from './core/ops';
import { Services } from './ui/services';
import { registerCommands } from './ui/commands/registerCommands';
import { jobLogSource } from './ui/commands/support/jobLogSource';
import { ClustersModel } from './ui/tree/clustersModel';
import { ClustersTreeProvider } from './ui/tree/clustersTreeProvider';
import { RefreshWhileVisible } from './ui/tree/refreshWhileVisible';
import { ClustersStatusBar } from './ui/statusBar/clustersStatusBar';
import { LogPanelManager, registerLogPanelSerializer } from './ui/logs';
import { registerTaskYamlSupport } from './ui/taskYaml';

/** What activate() returns: the in-host tests read the model instead of scraping the tree. */
export interface SkydeckApi {
  clustersModel: ClustersModel;
}

/** Composition root: build the services and register the UI; nothing else. */
export function activate(context: vscode.ExtensionContext): SkydeckApi {
  const services = new Services(context);
  const model = new ClustersModel({
    listClusters: async () => (await services.state()).read((db) => listClusters(db)),
    queue: async (cluster) => queue(await services.ops(), cluster),
  });
  const clusters = new ClustersTreeProvider(model);
  const view = vscode.window.createTreeView('skydeck.clusters', { treeDataProvider: clusters, showCollapseAll: true });
  const logs = new LogPanelManager(context.extensionUri, (key) => jobLogSource(() => services.ops(), key), services.log);
  context.subscriptions.push(
    services,
    clusters,
    view,
    logs,
    registerLogPanelSerializer(logs),
    new RefreshWhileVisible(view, () => clusters.refresh(), (e) => services.log.warn(`refresh: ${e.message}`)),
    new ClustersStatusBar(model),
    ...registerCommands({ services, clusters, model, logs }),
    // The Exec CodeLens offers the UP clusters the Clusters view last loaded.
    ...registerTaskYamlSupport(context, async () => model.all.filter((c) => c.status === 'UP').map((c) => c.name), clusters.onDidChangeTreeData),
  );
  return { clustersModel: model };
}

export function deactivate(): void {}
