import type { Resources, Task } from '../task';
import type { JobSpec } from '../jobs';

/** What the agent schedules on: the lower bounds of the task's first resource choice. */
export function demandOf(r: Resources): NonNullable<JobSpec['resources']> {
  const out: NonNullable<JobSpec['resources']> = {};
  if (r.cpus) out.cpus = r.cpus.min;
  if (r.memory) out.memory = r.memory.min;
  const acc = r.accelerators[0];
  if (acc && !acc.memory) out.accelerators = { [acc.name]: acc.count };
  return out;
}

export function jobSpecOf(
  task: Task,
  envs: Record<string, string>,
  opts: { user: string; workdir: string; withSetup: boolean; secrets?: Record<string, string> },
): JobSpec {
  return {
    name: task.name,
    user: opts.user,
    setup: opts.withSetup ? task.setup : undefined,
    run: task.run,
    envs,
    ...(opts.secrets && Object.keys(opts.secrets).length ? { secrets: opts.secrets } : {}),
    workdir: opts.workdir,
    resources: demandOf(task.resources),
    num_nodes: task.numNodes,
  };
}
