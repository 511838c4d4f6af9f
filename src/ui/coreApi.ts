import type * as vscode from 'vscode';
import type { ClusterRecord, StateStore } from '../core/state';
import type { BucketDeleteResult, BucketListing, BucketReconcileOutcome, Connections, OpsContext, ReconcileOutcome } from '../core/ops';
import type { StoreKind } from '../core/storage/types';
import type { JobRow } from '../core/jobs/protocol';
import type { PoolsResult } from '../core/clouds/sshPools';
import type { ProviderRegistry } from '../core/clouds/provider';
import type { Database } from 'sql.js';
import type { CostView } from '../core/cost/costView';
import type { LastWindowDeps, LastWindowWatch } from './cost/lastWindowWatch';
import type { CommandDeps } from './commands/command';
import type { JobKey } from './logs/protocol';
import type { LogSource } from './logs/logSource';
import type { ManagedJobsClient, ManagedJobsListing } from '../core/managed';

/**
 * What the lazily loaded core chunk (dist/extension-core.js, src/extensionCore.ts) gives the UI
 * shell. The shell names only this interface, and this file imports types alone, none of them
 * from the shell: the shell, the chunk and the commands do not import each other in a circle.
 */
export interface CoreApi {
  /** The real command handlers (they replace the activation stand-ins). */
  registerCommands(deps: CommandDeps): vscode.Disposable[];
  /** Diagnostics, hover and CodeLens for task YAML files. */
  registerTaskYamlSupport(
    context: vscode.ExtensionContext, upClusters: () => Promise<string[]>, clustersChanged?: vscode.Event<unknown>,
    setup?: { workspaceRoot(): string | undefined; upClusters(): Promise<{ name: string; uid: string }[]> },
  ): vscode.Disposable[];
  jobLogSource(ops: () => Promise<OpsContext>, key: JobKey): LogSource;
  StateStore: Pick<typeof StateStore, 'open' | 'openWorkspace'>;
  listClusters(db: Database): ClusterRecord[];
  Connections: typeof Connections;
  defaultKnownHostsFile(): string;
  queue(ctx: OpsContext, cluster: string): Promise<JobRow[]>;
  reconcile(ctx: OpsContext): Promise<ReconcileOutcome[]>;
  /** Crash recovery of bucket rows left CREATING or DELETING (none: no store is asked). */
  reconcileBuckets(ctx: OpsContext): Promise<BucketReconcileOutcome[]>;
  loadSshPools(settings: unknown): PoolsResult;
  cloudProviders(opts?: { log?: (m: string) => void }): ProviderRegistry;
  /** Rates and spend of this workspace's clusters, and what other folders still bill (cost/costView.ts). */
  costView(ctx: OpsContext): Promise<CostView>;
  /** This window's lease among the open windows and the last-close warnings (cost/lastWindowWatch.ts). */
  lastWindowWatch(deps: LastWindowDeps): LastWindowWatch;
  /** Buckets Skydeck created, from the state's buckets table (the Storage section). */
  listBuckets(store: StateStore): Promise<BucketListing[]>;
  /** Deletes one of them with proof; `force` also deletes a bucket Skydeck did not create. */
  deleteBucket(ctx: OpsContext, name: string, store: StoreKind, force: boolean): Promise<BucketDeleteResult>;
  /** The managed-jobs controller's workspace root ($SKYDECK_CONTROLLER_HOME, ~/.skydeck/controller). */
  controllerHome(): string;
  /**
   * The client of the controller where the jobs.controller setting puts it (core/managed/
   * editorClient.ts): on this machine, starting one runs the bundled dist/cli-main.js; on a controller
   * cluster, reached over `ops` (the controller home's context) and launched only with `launch`.
   */
  openManagedClient(home: string, o: { ops: () => Promise<OpsContext>; launch?: boolean }): Promise<ManagedJobsClient>;
  /** Where the controller runs, in words, for confirmations ("this machine", "ssh pool gpu"). */
  controllerPlace(): string;
  /** The Managed jobs section's rows (nothing opened before the first managed job). */
  listManagedJobs(home: string, client: () => Promise<ManagedJobsClient>, clusters: () => Promise<StateStore>): Promise<ManagedJobsListing>;
  /** A managed job's one continuous log across its clusters, for a log panel. */
  managedLogSource(client: () => Promise<ManagedJobsClient>, controllerOps: () => Promise<OpsContext>, id: number): LogSource;
}
