// A controller process over an in-memory fake cloud (as aws, instances = this machine), for tests
// that drive it from outside through the store file, as the CLI does. On the stdin line "report"
// it prints what the cloud holds (per cluster name: live or not) and the leaks, then exits.
import * as readline from 'node:readline';
import { listClusters } from '../../../src/core/state';
import { leaks } from '../../support/fakeCloud/harness';
import { isLiveStatus } from '../../support/fakeCloud/model';
import { makeCtx, openController } from '../../unit/managed/helpers';

export interface ServingReport {
  /** Cluster name → whether any of its instances is live. */
  clusters: Record<string, boolean>;
  rows: string[];
  leaks: string[];
  runInstances: number;
}

async function main(root: string): Promise<void> {
  process.env.SKYDECK_SHUTDOWN_COMMAND = 'echo "test: shutdown skipped"';
  let runs = 0;
  const { ctx, cloud } = await makeCtx(root, { onCall: (op, at) => void (op === 'runInstances' && at === 'before' && runs++) });
  const ctl = await openController(ctx, { leaseTimeoutMs: 60_000 });
  process.stdout.write('serving\n');
  for await (const line of readline.createInterface({ input: process.stdin })) {
    if (line.trim() !== 'report') continue;
    await ctl.stop();
    const clusters: Record<string, boolean> = {};
    for (const i of cloud.truth()) {
      const n = i.tags['skydeck-cluster'] ?? '?';
      clusters[n] = (clusters[n] ?? false) || isLiveStatus(i.status);
    }
    const report: ServingReport = { clusters, rows: (await ctx.store.read((db) => listClusters(db))).map((r) => r.name), leaks: await leaks({ store: ctx.store, cloud }), runInstances: runs };
    process.stdout.write(`${JSON.stringify(report)}\n`);
    await ctx.connections.closeAll();
    ctx.store.close();
    process.exit(0);
  }
}

main(process.argv[2]).catch((e) => {
  process.stderr.write(`${(e as Error).stack}\n`);
  process.exit(70);
});
