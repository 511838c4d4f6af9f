import type { Services } from '../services';
import type { ClustersTreeProvider } from '../tree/clustersTreeProvider';
import type { ClustersModel } from '../tree/clustersModel';
import type { LogPanelManager } from '../logs';

export interface CommandContext {
  services: Services;
  clusters: ClustersTreeProvider;
  model: ClustersModel;
  logs: LogPanelManager;
}

/** One palette/menu command; each lives in its own file. */
export interface Command {
  readonly id: string;
  run(ctx: CommandContext, ...args: unknown[]): unknown;
}
