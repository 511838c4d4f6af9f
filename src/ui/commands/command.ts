import type { Services } from '../services';
import type { ClustersTreeProvider } from '../tree/clustersTreeProvider';

export interface CommandContext {
  services: Services;
  clusters: ClustersTreeProvider;
}

/** One palette/menu command; each lives in its own file. */
export interface Command {
  readonly id: string;
  run(ctx: CommandContext, ...args: unknown[]): unknown;
}
