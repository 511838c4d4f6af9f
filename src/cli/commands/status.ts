import { expandClusterNames, refusedClusters, status as statusOp, type LiveAutostop } from '../../core/ops';
import { endpointsOutput } from '../endpoints';
import { formatRate, formatUsd, publishCosts, workspaceCosts } from '../../core/cost';
import { UsageError } from '../args';
import type { CliCommand } from '../command';
import { ago, table } from '../table';

export const statusCommand: CliCommand = {
  name: 'status',
  summary: 'list clusters',
  usage: `skydeck status [CLUSTER...] [-r] [--endpoints | --endpoint PORT]
  CLUSTER may be a glob pattern ('dev-*'); none: every cluster
  --endpoints     the cluster's opened ports (resources.ports) as HOST:PORT; one cluster
  --endpoint PORT that port's HOST:PORT only
  $/H is what each cluster bills now (nodes while running, disks while stopped) and SPEND
  what it has cost so far; prices with their source: skydeck show-gpus, cost-report
  -r, --refresh   check cloud clusters against their cloud (finishing interrupted
                  teardowns, removing clusters proven gone) and ask every UP cluster's
                  agent for its live job counts`,
  flags: [{ name: 'refresh', short: 'r' }, { name: 'endpoints' }, { name: 'endpoint', takesValue: true }],
  async run(args, io, context) {
    if (args.flags.endpoints || args.flags.endpoint !== undefined) return endpointsOutput(args, io, await context());
    const ctx = await context();
    const only = args.positionals.length ? new Set(await expandClusterNames(ctx, args.positionals)) : undefined;
    const refused = await refusedClusters(ctx);
    for (const m of refused) io.err(`warning: ${m}\n`);
    const rows = (await statusOp(ctx, { refresh: !!args.flags.refresh })).filter((r) => !only || only.has(r.cluster.name));
    const missing = [...(only ?? [])].filter((n) => !rows.some((r) => r.cluster.name === n));
    if (missing.length) throw new UsageError(`no cluster named ${missing.map((n) => JSON.stringify(n)).join(', ')}`);
    for (const r of rows) if (r.notOurs) io.err(`${r.cluster.name}: ${r.notOurs}\n`);
    // $/H is what the cluster's status bills now (a stopped one: its disks); SPEND is so far.
    const costs = await workspaceCosts(ctx);
    publishCosts(ctx, costs);
    if (!rows.length) {
      io.out('No clusters. Launch one with: skydeck launch TASK.yaml -c NAME\n');
      return 0;
    }
    for (const r of rows) if (r.note) io.err(`${r.cluster.name}: ${r.note}\n`);
    const costOf = new Map(costs.clusters.map((c) => [c.cluster.uid, c]));
    for (const r of rows) {
      for (const p of r.live?.autostop?.problems ?? []) io.err(`${r.cluster.name}: autostop could not stop the cluster: ${p}\n`);
    }
    io.out(table(
      ['NAME', 'LAUNCHED', 'CLOUD', 'REGION', 'NODES', 'STATUS', 'AUTOSTOP', '$/H', 'SPEND', 'JOBS'],
      rows.map(({ cluster: c, live, error, removed }) => [
        c.name, ago(c.launched_at / 1000), c.provider, c.region ?? '-', String(c.num_nodes),
        removed ? 'GONE (removed)' : c.status + (c.flags ? ` (${flagText(c.flags)})` : ''),
        autostopText(c.autostop_minutes, c.autostop_down === 1, live?.autostop),
        ...costColumns(removed ? undefined : costOf.get(c.uid)),
        error ? `unreachable: ${error}` : live ? `${live.running} running, ${live.pending} pending` : '-',
      ]),
    ));
    return 0;
  },
};

/** "10m", "10m (down)", with a refresh "10m, in 3m" or "10m, FAILED" (the reason goes to stderr). */
export function autostopText(minutes: number | null, down: boolean, live?: LiveAutostop): string {
  if (minutes === null) return '-';
  const base = `${minutes}m${down ? ' (down)' : ''}`;
  if (live?.problems.length) return `${base}, FAILED`;
  if (live && live.firesIn !== null) return `${base}, in ${Math.ceil(live.firesIn / 60)}m`;
  // Busy because a launch is still on its way to the job (or died: then it runs out).
  if (live?.heldFor) return `${base}, launch hold ${Math.ceil(live.heldFor / 60)}m`;
  return base;
}

/** "$3.06/h", "$12.40"; "-" for clusters no cloud bills; "unknown", never 0, without a price. */
export function costColumns(c: { rate: { billed: boolean }; now: Parameters<typeof formatRate>[0]; spentUsd?: number } | undefined): [string, string] {
  if (!c) return ['-', '-'];
  if (!c.rate.billed) return ['-', '-'];
  return [formatRate(c.now), formatUsd(c.spentUsd)];
}

/** What the user reads for a flags value. */
function flagText(flags: string): string {
  const known: Record<string, string> = {
    'termination-unconfirmed': 'termination unconfirmed: run skydeck down again',
    'stop-unconfirmed': 'stop unconfirmed: run skydeck stop again',
    terminating: 'tearing down',
    stopping: 'stopping',
  };
  return known[flags] ?? flags;
}
