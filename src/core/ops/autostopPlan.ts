// How the head's agent stops the cluster once idle long enough, per cloud. The agent decides
// idleness and carries the action out itself (agent/skydeck_agent_lib/selfstop.py):
// - aws: an OS shutdown of every node; RunInstances set the shutdown behaviour to stop, or to
//   terminate for autodown (and spot). No credentials on the VM.
// - gcp: autostop is an OS shutdown too (the VM becomes TERMINATED, i.e. stopped). Autodown
//   needs the Compute API: the head runs as Skydeck's own service account, whose one custom
//   role grants instances get/list/delete only (gcp/autodownIdentity.ts), and deletes the
//   cluster's instances with it.
// - azure: a shut-down VM keeps billing until deallocated, so both need ARM: the head gets a
//   system-assigned identity with a role on the cluster's resource group only (azure/identity.ts)
//   — the custom role "Skydeck autostop" (VM read and deallocate, azure/autostopRole.ts) to
//   deallocate, Contributor to delete the group (autodown).
// - kubernetes: pods have no stopped state, so only autodown: the head pod deletes the
//   cluster's pods with its own ServiceAccount, whose Role allows that on exactly these pods
//   (kubernetes/headAccess.ts; made only for a launch with --down).
// - local / ssh: Skydeck does not own those machines and never stops them.

export type AutostopAction = 'shutdown' | 'gcp' | 'azure' | 'kubernetes';

export type AutostopPlan =
  | { ok: true; action: AutostopAction }
  | { ok: false; why: string };

export function autostopPlan(cloud: string, down: boolean): AutostopPlan {
  switch (cloud) {
    case 'aws':
      return { ok: true, action: 'shutdown' };
    case 'gcp':
      return { ok: true, action: down ? 'gcp' : 'shutdown' };
    case 'azure':
      return { ok: true, action: 'azure' };
    case 'kubernetes':
      return down ? { ok: true, action: 'kubernetes' } : { ok: false, why: 'Kubernetes clusters cannot be stopped (pods have no stopped state): use --down, which deletes the pods once idle' };
    default:
      return { ok: false, why: `${cloud} clusters run on machines Skydeck does not own, so they are never stopped automatically` };
  }
}
