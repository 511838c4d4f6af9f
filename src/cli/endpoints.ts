import { clusterEndpoints, expandClusterNames, type OpsContext } from '../core/ops';
import { getCluster } from '../core/state';
import { UsageError, type ParsedArgs } from './args';
import type { CliIO } from './io';
import { flagText } from './ranges';

/** `status --endpoints CLUSTER` ("PORT: HOST:PORT" lines) and `status --endpoint PORT CLUSTER` (the HOST:PORT alone). */
export async function endpointsOutput(args: ParsedArgs, io: CliIO, ctx: OpsContext): Promise<number> {
  if (args.flags.endpoints && args.flags.endpoint !== undefined) throw new UsageError('give --endpoints or --endpoint PORT, not both');
  const names = await expandClusterNames(ctx, args.positionals);
  if (names.length !== 1) throw new UsageError('--endpoints and --endpoint take exactly one cluster');
  const portText = flagText(args.flags.endpoint);
  let port: number | undefined;
  if (portText !== undefined) {
    if (!/^[0-9]{1,5}$/.test(portText) || Number(portText) < 1 || Number(portText) > 65535) throw new UsageError(`--endpoint ${JSON.stringify(portText)} is not a port (1-65535)`);
    port = Number(portText);
  }
  const row = await ctx.store.read((db) => getCluster(db, names[0]));
  if (!row) throw new UsageError(`no cluster named "${names[0]}"`);
  const eps = clusterEndpoints(row, port);
  if (port !== undefined) io.out(`${eps[0].endpoint}\n`);
  else if (!eps.length) io.out(`${row.name} opens no ports (set resources.ports, or --ports at launch).\n`);
  else for (const e of eps) io.out(`${e.port}: ${e.endpoint}\n`);
  return 0;
}
