import { UsageError } from '../args';
import type { CliCommand } from '../command';
import { jobsLaunch } from './jobsLaunch';
import { jobsQueue } from './jobsQueue';
import { jobsCancel } from './jobsCancel';
import { jobsLogs } from './jobsLogs';
import { jobsControllerRun } from './jobsControllerRun';
import { jobsRemoteCall } from './jobsRemoteCall';

export const jobsCommand: CliCommand = {
  name: 'jobs',
  summary: 'managed jobs: each on its own cluster, recovered when preempted',
  usage: `skydeck jobs launch TASK.yaml [-n NAME] [--env K[=V]]... [--env-file FILE] [--secret K[=V]]... [-y] [-d] [--copy-credentials]
  A multi-document YAML is a pipeline: its tasks run one after another, each on a fresh cluster.
  -n, --name NAME   the job's name (default: the task's or pipeline's name)
  --secret K[=V]    a secret (K alone: from this shell); the controller keeps it to relaunch the job
  -d, --detach-run  submit and return; do not follow the job's output
  -y, --yes         do not ask for confirmation
  --copy-credentials  give a controller cluster your ssh pools' entries, keys and host keys
                    (needed for jobs on ssh pools; never cloud credentials)
skydeck jobs queue [--all] [--refresh]
  Unfinished managed jobs (--all: finished ones too): status, recoveries, cluster, duration.
  --refresh         start a stopped controller VM to read its list (it stopped itself once no
                    job was active; a look never starts it otherwise: it bills while up)
skydeck jobs cancel ID... | --all [-y]
  Cancels the jobs; their clusters are torn down with proof. --all needs -y.
skydeck jobs logs ID [--controller]
  Follows the job's output across its recoveries (a marked line at each); an ended job's
  output as the controller kept it before tearing its clusters down.
  --controller      what the controller recorded about the job: its status changes with
                    times and reasons, and its log's lines about the job
Where the controller runs: $SKYDECK_JOBS_CONTROLLER or jobs.controller in ~/.skydeck/config.yaml:
  this-machine   (default) in the background here; its state in $SKYDECK_CONTROLLER_HOME
                 (default ~/.skydeck/controller); it exits once every job has ended
  local-cluster  on a local cluster (skydeck-jobs-…, in that workspace's status/down)
  ssh:POOL       on a host of the ssh pool POOL: keeps running when this machine is off
  aws[/REGION]   on a small EC2 VM of its own, which stops itself once no managed job is active`,
  workspace: 'controller',
  flags: [
    { name: 'name', short: 'n', takesValue: true }, { name: 'env', takesValue: true, repeated: true },
    { name: 'env-file', takesValue: true }, { name: 'secret', takesValue: true, repeated: true },
    { name: 'yes', short: 'y' }, { name: 'detach-run', short: 'd' }, { name: 'all', short: 'a' },
    { name: 'controller' }, { name: 'idle-seconds', takesValue: true }, { name: 'poll-ms', takesValue: true }, { name: 'copy-credentials' },
    { name: 'refresh', short: 'r' },
  ],
  async run(args, io, context) {
    const [sub, ...rest] = args.positionals;
    if (sub === 'launch') return jobsLaunch(io, await context(), rest, args.flags);
    if (sub === 'queue') {
      if (rest.length) throw new UsageError('jobs queue takes no arguments');
      return jobsQueue(io, await context(), !!args.flags.all, !!args.flags.refresh);
    }
    if (sub === 'cancel') return jobsCancel(io, await context(), rest, args.flags);
    if (sub === 'logs') {
      if (rest.length !== 1) throw new UsageError('jobs logs takes one managed job id');
      return jobsLogs(io, await context(), rest[0], !!args.flags.controller);
    }
    // Hidden: the background controller loop that `jobs launch` starts.
    if (sub === 'controller-run') return jobsControllerRun(io, await context(), args.flags);
    // Hidden: what the remote client runs on a controller node (JSON on stdin and stdout).
    if (sub === 'remote-call') return jobsRemoteCall(io, await context(), rest[0]);
    throw new UsageError(sub ? `unknown jobs command "${sub}" (launch, queue, cancel, logs)` : 'jobs needs a command: launch, queue, cancel or logs');
  },
};
