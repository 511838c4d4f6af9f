import * as path from 'node:path';
import * as vscode from 'vscode';
import type { StateStore } from '../core/state';
import type { Connections, OpsContext, ReconcileOutcome } from '../core/ops';
import { notify } from './notify';
import type { CoreApi } from './coreApi';
import { opsContextOver } from './opsContextOver';
import type { ManagedJobsClient } from '../core/managed';

/** What dist/extension-core.js gives the shell (src/extensionCore.ts). */
export type Core = CoreApi;

/**
 * What the UI shares, built once in activate(). Everything behind core() — core/ops, ssh2, the
 * sql.js state, the task parser — is a separate file loaded on first use, and the state store
 * and the OpsContext open lazily after that, so activation parses and runs only the UI shell.
 */
export class Services implements vscode.Disposable {
  readonly log = vscode.window.createOutputChannel('Skydeck', { log: true });
  private loaded: Core | undefined;
  private readonly coreListeners: ((core: Core) => void)[] = [];
  private store: Promise<StateStore> | undefined;
  private opsContext: Promise<OpsContext> | undefined;
  private connections: Connections | undefined;
  private managedClient: Promise<ManagedJobsClient> | undefined;
  /** Whether managedClient was opened to launch (a controller cluster) or only to look. */
  private managedLaunches = false;
  private controllerStore: Promise<StateStore> | undefined;
  private controllerContext: Promise<OpsContext> | undefined;
  private controllerConnections: Connections | undefined;
  private disposed = false;
  private readonly reconciled = new vscode.EventEmitter<readonly ReconcileOutcome[]>();
  /** Fires when the start-up reconcile changed a cluster (the view may refresh early). */
  readonly onDidReconcile = this.reconciled.event;
  private readonly stateOpened = new vscode.EventEmitter<StateStore>();
  /** Fires once, when the workspace state is first opened (the state-file watch starts then). */
  readonly onDidOpenState = this.stateOpened.event;

  constructor(private readonly context: vscode.ExtensionContext, private readonly loadCore: () => Core = loadCoreChunk) {}

  /** The core chunk, loaded (synchronously, once) by whoever needs it first. */
  core(): Core {
    if (this.loaded) return this.loaded;
    const t0 = performance.now();
    const core = this.loadCore();
    this.loaded = core;
    this.log.debug(`core loaded in ${(performance.now() - t0).toFixed(0)} ms`);
    for (const l of this.coreListeners.splice(0)) l(core);
    return core;
  }

  /** Runs `f` when the core is loaded (now, if it already is): wiring that needs core classes. */
  onCoreLoaded(f: (core: Core) => void): void {
    if (this.loaded) f(this.loaded);
    else this.coreListeners.push(f);
  }

  state(): Promise<StateStore> {
    if (!this.store) {
      this.store = this.openStore();
      // The first open of the state is when this window first needs the clusters: reconcile
      // rows an earlier process left mid-way (INIT, unfinished or unconfirmed teardown/stop),
      // in the background. Never awaited: opening the state, and activation, do not wait on clouds.
      this.store.then((s) => {
        this.stateOpened.fire(s);
        setImmediate(() => void this.reconcileOnStartup());
      }, () => undefined);
    }
    return this.store;
  }

  /** Crash recovery (core ops.reconcile); outcomes go to the log channel, nothing is thrown. */
  private async reconcileOnStartup(): Promise<void> {
    try {
      const outcomes = await this.core().reconcile(await this.ops());
      if (this.disposed) return;
      const changed = outcomes.filter((o) => o.action !== 'unchanged');
      for (const o of changed) {
        const line = `start-up reconcile: ${o.name}: ${o.action}${o.message ? ` (${o.message})` : ''}`;
        if (o.action === 'error' || o.action.endsWith('-unconfirmed')) this.log.warn(line);
        else this.log.info(line);
      }
      this.log.debug(`start-up reconcile: ${outcomes.length} cluster(s) checked, ${changed.length} changed`);
      if (changed.length) this.reconciled.fire(changed);
      for (const b of await this.core().reconcileBuckets(await this.ops())) {
        if (this.disposed) return;
        const line = `start-up reconcile: bucket ${b.store}://${b.name}: ${b.action} (${b.message})`;
        if (b.action === 'error') this.log.warn(line);
        else this.log.info(line);
      }
    } catch (e) {
      if (!this.disposed) this.log.warn(`start-up reconcile failed: ${(e as Error).message}`);
    }
  }

  ops(): Promise<OpsContext> {
    this.opsContext ??= this.buildOps().catch((e) => {
      this.opsContext = undefined; // a failed open (e.g. unreadable state) may succeed on retry
      throw e;
    });
    return this.opsContext;
  }

  /** The workspace root local clusters live under; global storage with no folder open. */
  get workspaceRoot(): string {
    return vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? this.context.globalStorageUri.fsPath;
  }

  /** The managed-jobs controller's workspace (its store, its clusters' state, its log). */
  get controllerHome(): string {
    return this.core().controllerHome();
  }

  /**
   * One client of the controller for the window (the tree polls it, commands submit through it).
   * `launch` (a submit) reopens a look-only client: only a submit may launch a controller cluster.
   */
  managed(o: { launch?: boolean } = {}): Promise<ManagedJobsClient> {
    if (o.launch && !this.managedLaunches && this.managedClient) {
      // A poll may still be using the old client: close it once that has had time to finish.
      const old = this.managedClient;
      setTimeout(() => void old.then((c) => c.close(), () => undefined), 30_000).unref?.();
      this.managedClient = undefined;
    }
    if (!this.managedClient) {
      this.managedLaunches = !!o.launch;
      this.managedClient = this.core().openManagedClient(this.controllerHome, { ops: () => this.controllerOps(), launch: o.launch }).catch((e) => {
        this.managedClient = undefined;
        throw e;
      });
    }
    return this.managedClient;
  }

  /**
   * An OpsContext over the controller's workspace: its managed jobs' clusters are recorded
   * there, not in this window's state, so their logs are read through it.
   */
  controllerOps(): Promise<OpsContext> {
    this.controllerContext ??= (async () => {
      this.controllerStore ??= this.core().StateStore.openWorkspace(this.controllerHome);
      const { ctx, connections } = this.opsOver(this.controllerHome, await this.controllerStore);
      this.controllerConnections = connections;
      return ctx;
    })().catch((e) => {
      this.controllerContext = undefined;
      this.controllerStore = undefined;
      throw e;
    });
    return this.controllerContext;
  }

  /** The controller workspace's cluster state, for the Managed jobs section's costs. */
  async controllerClusters(): Promise<StateStore> {
    this.controllerStore ??= this.core().StateStore.openWorkspace(this.controllerHome);
    return this.controllerStore;
  }

  private async buildOps(): Promise<OpsContext> {
    const { ctx, connections } = this.opsOver(this.workspaceRoot, await this.state());
    this.connections = connections;
    return ctx;
  }

  private opsOver(root: string, store: StateStore): { ctx: OpsContext; connections: Connections } {
    return opsContextOver(this.core(), root, store, this.log, (host, fp, type) => this.askHostKey(host, fp, type));
  }

  /** Like ssh's first-connection question, as a modal: trusting a key is a security decision. */
  private async askHostKey(host: string, fingerprint: string, type: string): Promise<boolean> {
    const pick = await notify.warning(
      `The authenticity of host ${host} can't be established.`,
      { modal: true, detail: `${type} key fingerprint is ${fingerprint}.\nTrust it and continue?` },
      'Trust',
    );
    return pick === 'Trust';
  }

  private async openStore(): Promise<StateStore> {
    const { StateStore } = this.core();
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    // With no folder open, state lives in the extension's global storage.
    const store = folder
      ? await StateStore.openWorkspace(folder)
      : await StateStore.open(vscode.Uri.joinPath(this.context.globalStorageUri, 'state.db').fsPath);
    for (const n of store.notices) {
      this.log.warn(n.message);
      void notify.warning(n.message, 'Reveal Copy').then((pick) => {
        if (pick) void vscode.commands.executeCommand('revealFileInOS', vscode.Uri.file(n.movedTo));
      });
    }
    return store;
  }

  dispose(): void {
    this.disposed = true;
    this.reconciled.dispose();
    this.stateOpened.dispose();
    void this.connections?.closeAll().catch(() => undefined);
    void this.controllerConnections?.closeAll().catch(() => undefined);
    void this.managedClient?.then((c) => c.close(), () => undefined);
    void this.controllerStore?.then((s) => s.close(), () => undefined);
    this.log.dispose();
    void this.store?.then((s) => s.close());
  }
}

/**
 * dist/extension-core.js sits next to dist/extension.js. The path is computed at run time so
 * esbuild leaves this require alone instead of inlining the chunk into extension.js.
 */
function loadCoreChunk(): Core {
  return (require(path.join(__dirname, 'extension-core.js')) as { core: CoreApi }).core;
}
