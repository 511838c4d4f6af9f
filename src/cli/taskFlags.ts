import type { TaskInput } from '../core/ops';
import type { TaskOverrides } from '../core/task';
import { UsageError, type FlagSpec, type ParsedArgs } from './args';
import { entrypointOf } from './entrypoint';
import { parseEnvFlags, readEnvFile } from './envFlags';
import { flagText } from './ranges';

// The options launch and exec share with `sky launch` / `sky exec`: resource overrides, envs
// and secrets, and the task (YAML or inline command). Values are checked by the task parser
// (core/task/overrides.ts), so `--cpus x` fails exactly as `cpus: x` would, naming the flag.

export const TASK_FLAGS: FlagSpec[] = [
  { name: 'env', takesValue: true, repeated: true },
  { name: 'env-file', takesValue: true },
  { name: 'secret', takesValue: true, repeated: true },
  { name: 'name', short: 'n', takesValue: true },
  { name: 'workdir', takesValue: true },
  { name: 'num-nodes', takesValue: true },
  { name: 'gpus', takesValue: true },
  { name: 'cpus', takesValue: true },
  { name: 'memory', takesValue: true },
  { name: 'disk-size', takesValue: true },
  { name: 'instance-type', takesValue: true },
  { name: 'image-id', takesValue: true },
  { name: 'ports', takesValue: true, repeated: true },
  { name: 'use-spot' },
  { name: 'no-use-spot' },
  { name: 'infra', takesValue: true },
  { name: 'region', takesValue: true },
  { name: 'zone', takesValue: true },
];

export const TASK_FLAGS_USAGE = `  --env K[=V]             set or override an env (K alone: from this shell)
  --env-file FILE         envs from a dotenv file (--env wins over it)
  --secret K[=V]          set a secret (K alone: from this shell); never stored or logged
  -n, --name NAME         the task's name
  --workdir DIR           the workdir (relative: from this directory, as sky)
  --num-nodes N           nodes of the task
  --gpus ACC[:N]          accelerators, e.g. A100:8 or L4:0.5 (resources.accelerators)
  --cpus N[+]             vCPUs per node   --memory GB[+]   --disk-size GB
  --instance-type TYPE    --image-id IMAGE   --ports P[-Q] (repeatable)
  --use-spot, --no-use-spot
  --infra CLOUD[/REGION[/ZONE]]   --region REGION   --zone ZONE
TASK is a task YAML (an existing .yaml/.yml file) or a command run as the task's run:
  'python train.py', or the words after --. Relative workdir and file_mounts sources
resolve against this directory, as sky does.`;

/** The TaskInput of the words after the options (and the cluster, for exec) and the shared flags. */
export function taskInputOf(args: ParsedArgs, words: string[], verb: string): TaskInput {
  const f = args.flags;
  const text = (k: string) => flagText(f[k]);
  if (f['use-spot'] && f['no-use-spot']) throw new UsageError('--use-spot and --no-use-spot contradict each other');
  if (f.infra !== undefined && (f.region !== undefined || f.zone !== undefined)) {
    throw new UsageError('--infra already names the region and zone; use --infra CLOUD/REGION/ZONE alone, or --region/--zone');
  }
  const overrides: TaskOverrides = {
    name: text('name'), workdir: text('workdir'), numNodes: text('num-nodes'), gpus: text('gpus'), cpus: text('cpus'),
    memory: text('memory'), diskSize: text('disk-size'), instanceType: text('instance-type'), imageId: text('image-id'),
    ports: f.ports as string[] | undefined, useSpot: f['use-spot'] ? true : f['no-use-spot'] ? false : undefined,
    infra: text('infra'), region: text('region'), zone: text('zone'),
  };
  for (const k of Object.keys(overrides) as (keyof TaskOverrides)[]) if (overrides[k] === undefined) delete overrides[k];
  const fromFile = f['env-file'] !== undefined ? readEnvFile(String(f['env-file'])) : {};
  return {
    ...entrypointOf(words, verb),
    envs: { ...fromFile, ...parseEnvFlags(f.env as string[] | undefined) },
    secrets: parseEnvFlags(f.secret as string[] | undefined, '--secret'),
    overrides,
    pathBase: process.cwd(),
  };
}
