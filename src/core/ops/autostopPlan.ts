// What the head's agent runs when the cluster has been idle long enough, per cloud. The agent
// decides idleness; this decides the action, without cloud credentials on the VM:
// - aws: an OS shutdown; RunInstances set the shutdown behaviour to stop, or terminate for
//   autodown (and spot).
// - gcp: an OS shutdown stops the VM (TERMINATED). Deleting it needs the Compute API from the VM.
// - azure: a shut-down VM keeps billing until it is deallocated, which needs the ARM API.
// - local / ssh: Skydeck does not own those machines and never stops them.

export type AutostopPlan =
  | { ok: true; command: string[] }
  | { ok: false; why: string };

const SHUTDOWN = ['/bin/sh', '-c', 'sudo -n shutdown -h now || shutdown -h now'];

export function autostopPlan(cloud: string, down: boolean): AutostopPlan {
  switch (cloud) {
    case 'aws':
      return { ok: true, command: SHUTDOWN };
    case 'gcp':
      return down
        ? { ok: false, why: 'autodown on GCP needs the Compute API on the VM (credentials Skydeck does not put there); use autostop (stop) instead' }
        : { ok: true, command: SHUTDOWN };
    case 'azure':
      return { ok: false, why: 'a shut-down Azure VM keeps billing until it is deallocated, which needs the Azure API on the VM; stop the cluster with "skydeck stop" instead' };
    default:
      return { ok: false, why: `${cloud} clusters run on machines Skydeck does not own, so they are never stopped automatically` };
  }
}
