import { launch as launchOp } from '../../core/ops';
import { UsageError } from '../args';
import type { CliCommand } from '../command';
import { flagText, parseIdleMinutes } from '../ranges';
import { parseEnvFlags } from '../envFlags';
import { detachOnInterrupt, exitCodeFor, submittedLine } from '../follow';

export const launchCommand: CliCommand = {
  name: 'launch',
  summary: 'launch a cluster (or reuse one) and run the task on it',
  usage: `skydeck launch TASK.yaml [-c NAME] [-d] [--env K=V]... [--cloud CLOUD] [--idle-minutes N] [--down]
  -c, --cluster NAME    cluster name (default: a generated one); an existing cluster is reused
  -d, --detach-run      submit the job and return; do not stream its output
  --env K=V             set or override an env (required for envs whose value is null)
  --cloud CLOUD         override resources.cloud
  -i, --idle-minutes N  autostop after N idle minutes (cloud clusters)
  --down                with autostop: tear down instead of stopping
  -y, --yes             do not ask for confirmation
  --fast                on an UP cluster: no provisioning or file mounts; sync and setup
                        only if they changed since the last launch from here
  --share-credentials   let bucket mounts on ssh/local nodes use your own cloud keys
                        (also SKYDECK_SHARE_CREDENTIALS=1; off by default)
Streams the job's output until it ends and exits with its result; Ctrl-C detaches.`,
  flags: [
    { name: 'cluster', short: 'c', takesValue: true },
    { name: 'detach-run', short: 'd' },
    { name: 'env', takesValue: true, repeated: true },
    { name: 'cloud', takesValue: true },
    { name: 'idle-minutes', short: 'i', takesValue: true },
    { name: 'down' },
    { name: 'yes', short: 'y' },
    { name: 'share-credentials' },
    { name: 'fast' },
  ],
  async run(args, io, context) {
    const [taskFile, ...extra] = args.positionals;
    if (!taskFile || extra.length) throw new UsageError('launch takes exactly one task YAML');
    const idleText = flagText(args.flags['idle-minutes']);
    const idle = idleText === undefined ? undefined : parseIdleMinutes(idleText);
    const envs = parseEnvFlags(args.flags.env as string[] | undefined);
    const ctx = await context();
    if (args.flags['share-credentials']) ctx.storageCredentials = 'share';
    let cluster = args.flags.cluster as string | undefined;
    const detachRun = !!args.flags['detach-run'];
    // Ctrl-C before the job is submitted cancels provisioning (created instances are
    // terminated with proof); after it, it detaches from the job's output.
    const provisioning = new AbortController();
    let submitted = false;
    const detach = detachOnInterrupt(io, () => `Follow it again with: skydeck logs ${cluster ?? 'CLUSTER'}`, () => {
      if (submitted) return false;
      if (!provisioning.signal.aborted) io.err('\nCancelling the launch; terminating what was created (this waits for the cloud to confirm)...\n');
      provisioning.abort();
      return true;
    });
    try {
      const r = await launchOp(ctx, {
        taskFile, cluster, envs,
        cloud: args.flags.cloud as string | undefined,
        idleMinutes: idle,
        down: args.flags.down ? true : undefined, // absent: the task's resources.autostop.down decides
        detach: detachRun,
        fast: !!args.flags.fast,
        onOutput: (d) => io.outBytes(d),
        provisionSignal: provisioning.signal,
        onSubmitted: (id, name) => {
          submitted = true;
          cluster = name;
          io.err(submittedLine(id, name, detachRun));
        },
        signal: detach.signal,
      });
      return detachRun ? 0 : exitCodeFor(r.final, io, `Job ${r.jobId}`);
    } finally {
      detach.dispose();
    }
  },
};
