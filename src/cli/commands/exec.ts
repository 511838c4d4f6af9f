import { exec as execOp } from '../../core/ops';
import { UsageError } from '../args';
import type { CliCommand } from '../command';
import { detachOnInterrupt, exitCodeFor, submittedLine } from '../follow';
import { TASK_FLAGS, TASK_FLAGS_USAGE, taskInputOf } from '../taskFlags';

export const execCommand: CliCommand = {
  name: 'exec',
  summary: 'run a task or a command on an existing cluster (syncs the workdir; no setup)',
  usage: `skydeck exec CLUSTER TASK [-d] [options]     (TASK: a YAML or a command)
  -d, --detach-run   submit the job and return; do not stream its output
  --share-credentials  let bucket mounts on ssh/local nodes use your own cloud keys
${TASK_FLAGS_USAGE}`,
  flags: [
    { name: 'detach-run', short: 'd' },
    { name: 'share-credentials' },
    ...TASK_FLAGS,
  ],
  async run(args, io, context) {
    const [cluster, ...words] = args.positionals;
    if (!cluster || !words.length) throw new UsageError('exec takes a cluster name and a task YAML or a command');
    const input = taskInputOf(args, words, 'exec');
    const ctx = await context();
    if (args.flags['share-credentials']) ctx.storageCredentials = 'share';
    const detachRun = !!args.flags['detach-run'];
    const detach = detachOnInterrupt(io, () => `Follow it again with: skydeck logs ${cluster}`);
    try {
      const r = await execOp(ctx, {
        ...input, cluster, detach: detachRun,
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
