import * as vscode from 'vscode';
import { Services, type Core } from './ui/services';
import type { OpsContext } from './core/ops';
import { DeferredCommands } from './ui/deferredCommands';
import { ClustersModel } from './ui/tree/clustersModel';
import { ClustersTreeProvider } from './ui/tree/clustersTreeProvider';
import { RefreshWhileVisible } from './ui/tree/refreshWhileVisible';
import { ClustersStatusBar } from './ui/statusBar/clustersStatusBar';
import { IdleWarning } from './ui/cost/idleWarning';
import type { LastWindowWatch } from './ui/cost/lastWindowWatch';
import { LogPanelManager, registerLogPanelSerializer } from './ui/logs';
import { isTaskFileName } from './ui/taskYaml/taskFiles';
import { testProbe, type TestProbe } from './ui/testProbe';
import { JobEvents } from './ui/jobEvents';
import { JobEndNotifier } from './ui/jobEndNotifier';
import { watchStateFile } from './ui/stateFileWatch';

/** What activate() returns: the in-host tests read the model instead of scraping the tree. */
export interface SkydeckApi {
  clustersModel: ClustersModel;
  /** Milliseconds spent inside activate() itself (the in-host activation test reports it). */
  activateMs: number;
  /**
   * Only under the in-host test runner (SKYDECK_TEST=1): the shared OpsContext, so a suite can
   * put the fake cloud in its providers. Absent in normal use.
   */
  testOps?: () => Promise<OpsContext>;
  /** Only under the in-host test runner: the notifications shown and how each command ended. */
  testProbe?: TestProbe;
  /** Only under the in-host test runner: the Clusters view's data provider, whose nodes menus pass to commands. */
  testTree?: ClustersTreeProvider;
  /** Only under the in-host test runner: this window's lease among the open windows (ui/cost/lastWindowWatch.ts), once the core is loaded. */
  testLastWindow?: () => LastWindowWatch | undefined;
}

// deactivate() has no context: the window's lease is kept here for it.
let lastWindow: LastWindowWatch | undefined;

/**
 * Composition root: build the services and register the UI; nothing else. Only the UI shell is
 * in this file; the core (ops, ssh2, state, task parser) is dist/extension-core.js, loaded by
 * services.core() the first time something needs it. Imports from the core here are type-only.
 */
export function activate(context: vscode.ExtensionContext): SkydeckApi {
  const started = performance.now();
  const services = new Services(context);
  // Job ends learned anywhere in the window reach the tree, the status bar and the notifier at once.
  const jobEvents = new JobEvents();
  const model = new ClustersModel({
    listClusters: async () => {
      const { listClusters } = services.core();
      return (await services.state()).read((db) => listClusters(db));
    },
    queue: async (cluster) => services.core().queue(await services.ops(), cluster),
    listBuckets: async () => services.core().listBuckets(await services.state()),
    listManagedJobs: async () => services.core().listManagedJobs(services.controllerHome, () => services.managed(), () => services.controllerClusters()),
    costs: async () => services.core().costView(await services.ops()),
  }, jobEvents);
  const clusters = new ClustersTreeProvider(model);
  const view = vscode.window.createTreeView('skydeck.clusters', { treeDataProvider: clusters, showCollapseAll: true });
  const logs = new LogPanelManager(context.extensionUri, (key) => key.managed
    ? services.core().managedLogSource(() => services.managed(), () => services.controllerOps(), key.jobId)
    : services.core().jobLogSource(() => services.ops(), key), services.log, {
    onJobEnded: (key, f) => jobEvents.publish({ cluster: key.cluster, jobId: key.jobId, status: f.status, exitCode: f.exit_code, reason: f.reason, source: 'log' }),
    workdirOf: (key) => jobEvents.workdirOf(key.cluster, key.jobId),
  });
  const standIns = new DeferredCommands(DeferredCommands.contributedIds(context.extension.packageJSON), () => services.core());
  context.subscriptions.push(
    services,
    clusters,
    view,
    logs,
    standIns,
    registerLogPanelSerializer(logs),
    new RefreshWhileVisible(view, () => clusters.refresh(), (e) => services.log.warn(`refresh: ${e.message}`)),
    // Start-up reconcile may adopt or finish clusters: show it without waiting for the next poll.
    services.onDidReconcile(() => void clusters.refresh().catch(() => undefined)),
    new ClustersStatusBar(model),
    new IdleWarning(model),
    new JobEndNotifier(jobEvents, model),
    { dispose: () => jobEvents.dispose() },
    // A `skydeck` CLI call in this workspace (or another window) saved the state: show it now.
    services.onDidOpenState((store) => context.subscriptions.push(
      watchStateFile(store.file, () => store.changedOnDisk(), () => void clusters.refresh().catch(() => undefined), 200, () => store.saving),
    )),
  );

  // Whatever loads the core first (a command, the view's first refresh, a task file) wires the
  // parts that need it: the real commands replace the stand-ins, and task YAML support starts.
  services.onCoreLoaded((core: Core) => {
    standIns.dispose();
    // The window's lease (and the last-close note) starts with the core: the Clusters view's
    // first refresh loads it, so a window showing Skydeck has one.
    lastWindow = core.lastWindowWatch({ workspaceRoot: services.workspaceRoot, memento: context.globalState, log: (m) => services.log.warn(m) });
    context.subscriptions.push(lastWindow);
    lastWindow.start();
    context.subscriptions.push(
      ...core.registerCommands({
        ops: () => services.ops(),
        state: () => services.state(),
        log: services.log,
        workspaceRoot: services.workspaceRoot,
        model,
        refresh: () => clusters.refresh(),
        logs,
        managed: (o) => services.managed(o),
        controllerOps: () => services.controllerOps(),
        launchValues: { secrets: context.secrets, workspaceState: context.workspaceState },
        jobEvents,
      }),
      // The Exec CodeLens offers the UP clusters the Clusters view last loaded.
      ...core.registerTaskYamlSupport(context, async () => model.all.filter((c) => c.status === 'UP').map((c) => c.name), clusters.onDidChangeTreeData, {
        workspaceRoot: () => services.workspaceRoot,
        upClusters: async () => model.all.filter((c) => c.status === 'UP').map((c) => ({ name: c.name, uid: c.uid })),
      }),
    );
  });
  const isTaskDoc = (d: vscode.TextDocument) => isTaskFileName(d.fileName);
  if (vscode.workspace.textDocuments.some(isTaskDoc)) {
    // A task file is already open (a restored window): its diagnostics need the core, but the
    // workbench need not wait for them; load it as soon as activate() has returned.
    setImmediate(() => loadCore(services));
  } else {
    const opened = vscode.workspace.onDidOpenTextDocument((d) => {
      if (!isTaskDoc(d)) return;
      opened.dispose();
      loadCore(services);
    });
    context.subscriptions.push(opened);
  }
  const probe = testProbe();
  const testOps = probe ? { testOps: () => services.ops(), testProbe: probe, testTree: clusters, testLastWindow: () => lastWindow } : {};
  return { clustersModel: model, activateMs: performance.now() - started, ...testOps };
}

/** From an event rather than a user action: a failure goes to the log, not to an unhandled throw. */
function loadCore(services: Services): void {
  try {
    services.core();
  } catch (e) {
    services.log.error('loading the Skydeck core failed', e as Error);
  }
}

/** The last window to close leaves a note of what bills with no autostop (ui/cost/lastWindowWatch.ts). */
export function deactivate(): void {
  lastWindow?.windowClosing();
  lastWindow = undefined;
}
