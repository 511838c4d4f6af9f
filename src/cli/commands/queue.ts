import { expandClusterNames, queue as queueOp } from '../../core/ops';
import { TERMINAL_STATUSES, type JobRow } from '../../core/jobs';
import { listClusters, notOursReason } from '../../core/state';
import type { CliCommand } from '../command';
import { ago, duration, table } from '../table';
import { worstExit } from './down';

export const queueCommand: CliCommand = {
  name: 'queue',
  summary: "show clusters' job queues (every UP cluster when none is named)",
  usage: `skydeck queue [CLUSTER...] [-s] [-u]
  CLUSTER may be a glob pattern ('dev-*'); none: every UP cluster of this workspace
  -s, --skip-finished   hide jobs that ended
  -u, --all-users       show every user's jobs (default: yours)`,
  flags: [{ name: 'skip-finished', short: 's' }, { name: 'all-users', short: 'u' }],
  async run(args, io, context) {
    const ctx = await context();
    const named = args.positionals.length > 0;
    let names: string[];
    if (named) names = await expandClusterNames(ctx, args.positionals);
    else {
      const rows = await ctx.store.read((db) => listClusters(db));
      for (const r of rows.filter((r) => r.status !== 'UP' || notOursReason(r))) io.err(`${r.name}: ${notOursReason(r) ?? r.status}: not asked\n`);
      names = rows.filter((r) => r.status === 'UP' && !notOursReason(r)).map((r) => r.name);
      if (!names.length) {
        io.out('No UP clusters.\n');
        return 0;
      }
    }
    const keep = (j: JobRow) => (args.flags['all-users'] || j.user === ctx.user) && !(args.flags['skip-finished'] && TERMINAL_STATUSES.has(j.status));
    let code = 0;
    for (const [i, cluster] of names.entries()) {
      let jobs: JobRow[];
      try {
        jobs = await queueOp(ctx, cluster);
      } catch (e) {
        if (names.length === 1 && named) throw e;
        io.err(`skydeck queue ${cluster}: ${(e as Error).message}\n`);
        code = worstExit(code, e);
        continue;
      }
      io.out(`${i ? '\n' : ''}Job queue of ${cluster}\n`);
      io.out(queueTable(jobs.filter(keep)));
    }
    return code;
  },
};

function queueTable(jobs: JobRow[]): string {
  const now = Date.now() / 1000;
  return table(
    ['ID', 'NAME', 'USER', 'SUBMITTED', 'DURATION', 'RESOURCES', 'STATUS'],
    [...jobs].reverse().map((j) => [
      String(j.job_id), j.name ?? '-', j.user ?? '-', ago(j.submitted_at, now),
      j.started_at ? duration((j.ended_at ?? now) - j.started_at) : '-',
      [j.cpus ? `${j.cpus} CPU` : '', ...Object.entries(j.accelerators ?? {}).map(([k, v]) => `${k}:${v}`)].filter(Boolean).join(', ') || '-',
      j.status + (j.reason ? ` (${j.reason})` : ''),
    ]),
  );
}
