import { getCluster, type ClusterRecord } from '../../../core/state';
import type { CommandDeps } from '../command';
import { clusterFromArg } from './pickers';

/** An UP cluster's state row, from a tree node argument or a pick. */
export async function upClusterFromArg(ctx: Pick<CommandDeps, 'model' | 'state'>, arg: unknown, title: string): Promise<ClusterRecord> {
  const name = await clusterFromArg(ctx.model, arg, title, (c) => c.status === 'UP');
  const row = await (await ctx.state()).read((db) => getCluster(db, name));
  if (!row) throw new Error(`there is no cluster named ${name}`);
  if (row.status !== 'UP') throw new Error(`${name} is ${row.status}; it must be UP`);
  return row;
}
