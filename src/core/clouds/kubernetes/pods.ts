// Pods as instances: listing by the uid label and the lifecycle mapped to InstanceStatus.
import type * as k8s from '@kubernetes/client-node';
import { TAG_CLUSTER, TAG_UID, TAG_WORKSPACE, type InstanceInfo, type InstanceStatus } from '../provider';

/**
 * Only a pod that is no longer listed is gone. One being deleted (Terminating, which can last
 * forever on a lost node) and one whose container ended (Succeeded/Failed: the object is still
 * there) are "unknown": live, never running, never proof. A down keeps deleting (forced after
 * a grace) until the listing no longer shows them.
 */
export function podStatus(p: k8s.V1Pod): InstanceStatus {
  if (p.metadata?.deletionTimestamp) return 'unknown';
  switch (p.status?.phase) {
    case 'Pending': return 'pending';
    case 'Running': return 'running';
    default: return 'unknown';
  }
}

export function podInfo(p: k8s.V1Pod, context: string): InstanceInfo {
  const a = p.metadata?.annotations ?? {};
  const l = p.metadata?.labels ?? {};
  const tags: Record<string, string> = {};
  // Annotations hold the full values (labels are cut to 63 characters).
  for (const k of [TAG_CLUSTER, TAG_UID, TAG_WORKSPACE]) {
    const v = a[k] ?? l[k];
    if (v !== undefined) tags[k] = v;
  }
  return {
    id: p.metadata?.name ?? '',
    status: podStatus(p),
    region: context,
    launchedAt: p.metadata?.creationTimestamp ? new Date(p.metadata.creationTimestamp).getTime() : 0,
    tags,
    ...(p.status?.podIP ? { privateIp: p.status.podIP } : {}),
  };
}

/** Why a pending pod cannot start, when Kubernetes says so (image, scheduling); undefined otherwise. */
export function pendingProblem(p: k8s.V1Pod): string | undefined {
  for (const c of p.status?.containerStatuses ?? []) {
    const w = c.state?.waiting;
    if (w?.reason && /ErrImage|ImagePull|InvalidImageName|CreateContainerConfigError|ErrImageNeverPull/.test(w.reason)) {
      return `pod ${p.metadata?.name}: ${w.reason}${w.message ? `: ${w.message}` : ''}`;
    }
  }
  const sched = p.status?.conditions?.find((c) => c.type === 'PodScheduled' && c.status === 'False' && c.reason === 'Unschedulable');
  return sched ? `pod ${p.metadata?.name} cannot be scheduled: ${sched.message ?? 'no node fits'}` : undefined;
}
