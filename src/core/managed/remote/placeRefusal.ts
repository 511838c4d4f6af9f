// What a cloud controller VM refuses to launch for a job, checked on this machine before the
// controller is launched or the job recorded: otherwise a user pays for a controller's start
// and gets a job that fails at its first launch. The VM's providers refuse the same (last line
// of defence; gcpProvider.ts, azureProvider.ts say why each is refused).
import { parseTaskText } from '../../task';
import type { Resources } from '../../task/types';
import type { ControllerPlace } from './setting';

/** Every candidate a task's cluster may be launched from (any_of / ordered included). */
function candidates(r: Resources): Resources[] {
  return [r, ...(r.anyOf ?? []), ...(r.ordered ?? [])];
}

function refusal(cloud: string, r: Resources): string | undefined {
  if (r.cloud !== undefined && r.cloud !== cloud) return undefined; // not the controller's cloud: its own checks
  if (cloud === 'gcp' && r.ports.length) {
    return 'resources.ports: a managed-jobs controller on GCP may not change firewall rules (IAM cannot narrow them to its own), so its job clusters get SSH only; drop the ports, or run the task as a normal cluster (skydeck launch)';
  }
  if (cloud === 'gcp' && r.autostop?.down) {
    return 'resources.autostop down: a managed-jobs controller on GCP tears its job clusters down itself and may attach no autodown account; drop autostop (the cluster goes when the job ends)';
  }
  if (cloud === 'azure' && r.autostop) {
    return "resources.autostop: a job cluster of a managed-jobs controller on Azure shares the controller's resource group, which a head's stop would reach entirely; drop autostop (the cluster goes when the job ends)";
  }
  return undefined;
}

/** Throws naming the first task the controller at `place` would refuse; tasks already checked (checkSubmit). */
export function checkControllerPlace(place: ControllerPlace, tasks: string[], envs: Record<string, string>): void {
  if (place.kind !== 'cloud') return;
  tasks.forEach((text, i) => {
    const p = parseTaskText(text, `task ${i + 1}`, { env: envs });
    for (const task of p.ok ? p.tasks : []) {
      for (const r of candidates(task.resources)) {
        const why = refusal(place.cloud, r);
        if (why) throw new Error(`task ${i + 1} of the managed job cannot run on the ${place.cloud} controller: ${why}`);
      }
    }
  });
}
