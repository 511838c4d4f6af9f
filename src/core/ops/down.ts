import { appendEvent, deleteClusterAfterProof, type ClusterRecord } from '../state';
import { defaultSshConfigPaths, removeClusterSshConfig } from '../access/sshConfigFile';
import { TERMINAL_STATUSES } from '../jobs';

import type { OpsContext } from './context';
import { OpsError } from './errors';
import { requireCluster } from './findCluster';
import { readHandle } from './clusterHandle';
import { updateCluster } from './provisionReachable';
import { isProviderCluster } from './providerEnv';
import { downProvider } from './downProvider';
import { downWorkers } from './multiNode';

export interface DownOptions {
  graceSeconds?: number;
  /** Forget the cluster even if its machines cannot be reached to clean them up. */
  purge?: boolean;
}

/**
 * Tears down a cluster. Cloud clusters: downProvider.ts. A local or ssh cluster: cancels every job (TERM, then KILL after the grace),
 * waits until the agent reports none alive, stops the agent, removes Skydeck's directory on
 * the machine, and only then forgets the cluster. Nothing else on the machine is touched.
 */
export async function down(ctx: OpsContext, name: string, opts: DownOptions = {}): Promise<{ cleaned: boolean; notes: string[] }> {
  const row = await requireCluster(ctx, name, false);
  const result = isProviderCluster(row) ? await downProvider(ctx, row, !!opts.purge) : await downReachable(ctx, row, opts);
  // The cluster is gone: so is the Host entry Connect with Remote-SSH wrote for it.
  removeClusterSshConfig(defaultSshConfigPaths(), name);
  return result;
}

async function downReachable(ctx: OpsContext, row: ClusterRecord, opts: DownOptions): Promise<{ cleaned: boolean; notes: string[] }> {
  const name = row.name;
  const notes: string[] = [];
  const grace = opts.graceSeconds ?? 10;
  const client = ctx.connections.client(row);
  try {
    ctx.progress(`Cancelling the jobs on ${name}`);
    await client.cancel({ all: true }, grace);
    const deadline = Date.now() + (grace + 15) * 1000;
    for (;;) {
      const alive = (await client.queue()).filter((j) => !TERMINAL_STATUSES.has(j.status));
      if (alive.length === 0) break;
      if (Date.now() > deadline) throw new Error(`jobs ${alive.map((j) => j.job_id).join(', ')} are still alive after ${grace + 15} s`);
      await new Promise((r) => setTimeout(r, 100));
    }
    ctx.progress(`Stopping the agent on ${name}`);
    await client.shutdown();
    const workerProblems = await downWorkers(ctx, row);
    if (workerProblems.length) throw new Error(`cleaning the worker nodes failed: ${workerProblems.join('; ')}`);
    const base = (await client.connect()).base;
    await ctx.connections.forget(name);
    const transport = ctx.connections.transportForCluster(row);
    const r = await transport.exec(['rm', '-rf', '--', base]);
    await transport.close();
    if (r.code !== 0) throw new Error(`removing ${base} failed: ${r.stderr.toString().trim()}`);
    notes.push(`removed ${base}${row.provider === 'ssh' ? ` on ${readHandle(row).hosts.map((h) => h.address).join(', ')}` : ''}`);
  } catch (e) {
    await ctx.connections.forget(name);
    if (!opts.purge) {
      await updateCluster(ctx, name, { last_error: `down failed: ${(e as Error).message}`, flags: 'down-unconfirmed' }, {
        kind: 'down-failed', message: (e as Error).message,
      });
      throw new OpsError('failed', `could not clean up ${name}: ${(e as Error).message}. The cluster is kept; retry, or use --purge to forget it anyway (its processes may keep running)`);
    }
    notes.push(`--purge: forgot ${name} without cleaning its machine (${(e as Error).message}); processes there may still run`);
  }
  await ctx.store.write((db) => {
    appendEvent(db, { cluster: name, kind: 'down', message: notes.join('; ') });
    deleteClusterAfterProof(db, name);
  });
  return { cleaned: !notes.some((n) => n.startsWith('--purge')), notes };
}
