import type * as vscode from 'vscode';
import type { OpsContext } from '../../core/ops';
import type { StateStore } from '../../core/state';
import type { ClustersModel } from '../tree/clustersModel';
import type { LogPanelManager } from '../logs';
import type { ManagedJobsClient } from '../../core/managed';
import type { JobEvents } from '../jobEvents';

/**
 * Everything a command may use. Each command names the parts it touches (Command<'model' | …>),
 * so a reader sees at the top of its file what it can reach, and the compiler holds it to that.
 * Nothing here imports the services or the registry back: no cycle through this file.
 */
export interface CommandDeps {
  /** The shared OpsContext (opens the state and the connections on first use). */
  ops(): Promise<OpsContext>;
  state(): Promise<StateStore>;
  log: vscode.LogOutputChannel;
  /** The folder local clusters and the managed ssh config live under. */
  workspaceRoot: string;
  model: ClustersModel;
  /** Reloads the Clusters view now. */
  refresh(): Promise<void>;
  logs: Pick<LogPanelManager, 'open'>;
  /** Where Launch/Exec keep answers for a task's empty envs (workspaceState) and secrets (SecretStorage only). */
  launchValues: { secrets: vscode.SecretStorage; workspaceState: vscode.Memento };
  /** The managed-jobs controller's client (shared; opened on first use). */
  managed(o?: { launch?: boolean }): Promise<ManagedJobsClient>;
  /** An OpsContext over the controller's workspace, where its jobs' clusters are recorded. */
  controllerOps(): Promise<OpsContext>;
  /** Job ends learned anywhere in the window, and the jobs Launch/Exec submitted here. */
  jobEvents: JobEvents;
}

/** One palette/menu command; each lives in its own file. */
export interface Command<K extends keyof CommandDeps = keyof CommandDeps> {
  readonly id: string;
  run(deps: Pick<CommandDeps, K>, ...args: unknown[]): unknown;
}
