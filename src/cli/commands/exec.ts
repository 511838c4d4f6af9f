import { exec as execOp } from '../../core/ops';
import { UsageError } from '../args';
import type { CliCommand } from '../command';
import { parseEnvFlags } from '../envFlags';
import { detachOnInterrupt, exitCodeFor, submittedLine } from '../follow';

export const execCommand: CliCommand = {
  name: 'exec',
  summary: 'run a task on an existing cluster (syncs the workdir; no setup)',
  usage: `skydeck exec CLUSTER TASK.yaml [-d] [--env K=V]...
  -d, --detach-run   submit the job and return; do not stream its output
  --env K=V          set or override an env
  --share-credentials  let bucket mounts on ssh/local nodes use your own cloud keys`,
  flags: [
    { name: 'detach-run', short: 'd' },
    { name: 'env', takesValue: true, repeated: true },
    { name: 'share-credentials' },
  ],
  async run(args, io, context) {
    const [cluster, taskFile, ...extra] = args.positionals;
    if (!cluster || !taskFile || extra.length) throw new UsageError('exec takes a cluster name and one task YAML');
    const envs = parseEnvFlags(args.flags.env as string[] | undefined);
    const ctx = await context();
    if (args.flags['share-credentials']) ctx.storageCredentials = 'share';
    const detachRun = !!args.flags['detach-run'];
    const detach = detachOnInterrupt(io, () => `Follow it again with: skydeck logs ${cluster}`);
    try {
      const r = await execOp(ctx, {
        cluster, taskFile, envs, detach: detachRun,
        onOutput: (d) => io.outBytes(d),
        onSubmitted: (id) => io.err(submittedLine(id, cluster, detachRun)),
        signal: detach.signal,
      });
      return detachRun ? 0 : exitCodeFor(r.final, io, `Job ${r.jobId}`);
    } finally {
      detach.dispose();
    }
  },
};
