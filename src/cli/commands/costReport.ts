import { endedClusters, formatUsd, readIndex, workspaceCosts } from '../../core/cost';
import { readStateSnapshot, type StateSnapshot } from '../../core/state';
import { UsageError } from '../args';
import type { CliCommand } from '../command';
import { duration, table } from '../table';
import * as path from 'node:path';

export const costReportCommand: CliCommand = {
  name: 'cost-report',
  summary: 'what clusters cost: finished ones (from the events log) and live ones so far',
  usage: `skydeck cost-report [--all]
  Finished clusters of this workspace with their duration and cost (recorded when each was
  torn down), then the clusters still live with their spend so far.
  --all   also every other workspace in the per-user index (~/.skydeck/index, or
          $SKYDECK_HOME/index); their state files are only read, never changed`,
  flags: [{ name: 'all' }],
  async run(args, io, context) {
    if (args.positionals.length) throw new UsageError('cost-report takes no arguments');
    const ctx = await context();
    const sections: { folder: string; store: Pick<StateSnapshot, 'read'> }[] = [{ folder: ctx.workspaceRoot, store: ctx.store }];
    const opened: StateSnapshot[] = [];
    if (args.flags.all) {
      const mine = (await workspaceCosts(ctx)).workspaceId;
      const idx = readIndex(mine);
      for (const r of idx.refused) io.err(`warning: index entry refused: ${r}\n`);
      for (const w of idx.workspaces) {
        // Read-only: a snapshot of the other workspace's state, never saved back.
        const store = await readStateSnapshot(path.join(w.folder, '.skydeck', 'state.db')).catch((e: Error) => {
          io.err(`warning: ${w.folder}: ${e.message}\n`);
          return undefined;
        });
        if (store) {
          opened.push(store);
          sections.push({ folder: w.folder, store });
        }
      }
    }
    try {
      const rows: string[][] = [];
      let total = 0;
      let unknown = 0;
      for (const s of sections) {
        const ended = await s.store.read((db) => endedClusters(db));
        const live = await workspaceCosts({ store: s.store, clock: ctx.clock });
        for (const e of ended) {
          if (e.costUsd === undefined) unknown++;
          else total += e.costUsd;
          rows.push([e.name, s.folder, e.provider, e.instanceType ?? '-', String(e.nodes), duration((e.runningMs + e.stoppedMs) / 1000),
            e.usdPerHour !== undefined ? `$${e.usdPerHour.toFixed(2)}/h` : 'unknown', formatUsd(e.costUsd), 'ENDED']);
        }
        for (const c of live.clusters.filter((x) => x.rate.billed)) {
          if (c.spentUsd === undefined) unknown++;
          else total += c.spentUsd;
          rows.push([c.cluster.name, s.folder, c.cluster.provider, c.rate.instanceType ?? '-', String(c.rate.nodes),
            duration((c.time.runningMs + c.time.stoppedMs) / 1000), 'usdPerHour' in c.now ? `$${c.now.usdPerHour.toFixed(2)}/h` : 'unknown',
            formatUsd(c.spentUsd), c.cluster.status]);
        }
      }
      if (!rows.length) {
        io.out('No billed clusters recorded yet.\n');
        return 0;
      }
      io.out(table(['NAME', 'WORKSPACE', 'CLOUD', 'TYPE', 'NODES', 'DURATION', '$/H', 'COST', 'STATUS'], rows));
      io.out(`\nTotal: ${formatUsd(total)}${unknown ? ` plus ${unknown} cluster(s) of unknown cost` : ''}\n`);
      return 0;
    } finally {
      for (const s of opened) s.close();
    }
  },
};
