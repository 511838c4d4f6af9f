// What a holder's worker does with a `warm` hint (cliRequest.ts): the first steps of a run like
// it — the state read, the cluster's row, the agent's `serve` channel opened (agent checked,
// host key verified as for any run) — and nothing else: no task is read, nothing is submitted.
// The connections stay for the next run with the same workspace and environment (worker.ts
// keepConnections), so that run's first output waits only for its own submit.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { requireCluster } from '../core/ops/findCluster';
import { parseArgs } from './args';
import { execCommand } from './commands/exec';
import { cliContext } from './opsContext';
import type { CliIO } from './io';

/** Opens what a run of `argv` would open first. Anything odd: nothing is warmed (no error). */
export async function prewarmRun(argv: string[], io: CliIO): Promise<void> {
  if (argv[0] !== 'exec') return;
  let cluster: string | undefined;
  try {
    cluster = parseArgs(argv.slice(1), execCommand.flags).positionals[0];
  } catch {
    return;
  }
  if (!cluster) return;
  const root = process.env.SKYDECK_WORKSPACE || process.cwd();
  // A hint outlives its run: a workspace whose state is gone by now is not made again.
  if (!fs.existsSync(path.join(root, '.skydeck', 'state.db'))) return;
  const ctx = await cliContext(io, root);
  try {
    const row = await requireCluster(ctx, cluster);
    await ctx.connections.client(row).connect();
  } finally {
    ctx.store.close();
  }
}
