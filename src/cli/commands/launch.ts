import { launch as launchOp, launchPlan } from '../../core/ops';
import type { CliCommand } from '../command';
import { flagText, parseIdleMinutes } from '../ranges';
import { detachOnInterrupt, exitCodeFor, submittedLine } from '../follow';
import { TASK_FLAGS, TASK_FLAGS_USAGE, taskInputOf } from '../taskFlags';
import { optimizerTable, planText } from '../planText';

export const launchCommand: CliCommand = {
  name: 'launch',
  summary: 'launch a cluster (or reuse one) and run the task on it',
  usage: `skydeck launch TASK [-c NAME] [-d] [options]     (TASK: a YAML or a command)
  -c, --cluster NAME    cluster name (default: a generated one); an existing cluster is reused
  -d, --detach-run      submit the job and return; do not stream its output
  --cloud CLOUD         override resources.cloud (prefer --infra)
  -i, --idle-minutes N  autostop after N idle minutes (cloud clusters)
  --down                with autostop: tear down instead of stopping
  --no-setup            skip the task's setup (run only)
  --dryrun              show the plan (candidates with $/h, what is synced, what would be
                        created) and create nothing
  -r, --retry-until-up  when no placement has capacity, try again (waits grow) until the
                        cluster is up; Ctrl-C stops
  -y, --yes             do not ask for confirmation
  --fast                on an UP cluster: no provisioning or file mounts; sync and setup
                        only if they changed since the last launch from here
  --share-credentials   let bucket mounts on ssh/local nodes use your own cloud keys
                        (also SKYDECK_SHARE_CREDENTIALS=1; off by default)
${TASK_FLAGS_USAGE}
Streams the job's output until it ends and exits with its result; Ctrl-C detaches.`,
  flags: [
    { name: 'cluster', short: 'c', takesValue: true },
    { name: 'detach-run', short: 'd' },
    { name: 'cloud', takesValue: true },
    { name: 'idle-minutes', short: 'i', takesValue: true },
    { name: 'down' },
    { name: 'no-setup' },
    { name: 'dryrun' },
    { name: 'retry-until-up', short: 'r' },
    { name: 'yes', short: 'y' },
    { name: 'share-credentials' },
    { name: 'fast' },
    ...TASK_FLAGS,
  ],
  async run(args, io, context) {
    const idleText = flagText(args.flags['idle-minutes']);
    const idle = idleText === undefined ? undefined : parseIdleMinutes(idleText);
    const input = taskInputOf(args, args.positionals, 'launch');
    const ctx = await context();
    if (args.flags['share-credentials']) ctx.storageCredentials = 'share';
    let cluster = args.flags.cluster as string | undefined;
    const common = {
      ...input, cluster, cloud: args.flags.cloud as string | undefined, idleMinutes: idle,
      down: args.flags.down ? true : undefined, // absent: the task's resources.autostop.down decides
      noSetup: !!args.flags['no-setup'],
    };
    if (args.flags.dryrun) {
      io.out(planText(await launchPlan(ctx, common)));
      return 0;
    }
    const detachRun = !!args.flags['detach-run'];
    // Ctrl-C before the job is submitted cancels provisioning (created instances are
    // terminated with proof), a wait of --retry-until-up included; after it, it detaches.
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
        ...common,
        retryUntilUp: !!args.flags['retry-until-up'],
        detach: detachRun,
        fast: !!args.flags.fast,
        // Before a new cloud cluster is provisioned: the same table as --dryrun (on stderr, as
        // progress is: stdout is the job's output).
        onPlan: (plan) => io.err(optimizerTable(plan)),
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
