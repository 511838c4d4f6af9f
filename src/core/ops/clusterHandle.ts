import type { ClusterRecord } from '../state';
import type { HostSpec } from '../clouds/hostSpec';
import type { Owner } from '../provision/owner';
import type { ContainerHandle } from '../containers/image';

/** What a local or ssh cluster row keeps in its `handle` column. */
export interface ReachableHandle {
  /** Head first. Empty for the local cloud. */
  hosts: HostSpec[];
  pool?: string;
  /** Agent base dir on the head; undefined = the node's ~/.skydeck. */
  base?: string;
  /** Where the task's workdir is synced on the head. */
  workdir: string;
  /** The head is this machine (the fake cloud in tests): no SSH. */
  local?: boolean;
  /** Kubernetes: the pods (head first), reached through the API server's exec, no SSH. */
  kube?: KubeHandle;
  /** `image_id: docker:…`: every node runs the task in this container (containers/). */
  container?: ContainerHandle;
  /** The down under way (local/ssh): one at a time per uid; a dead one's claim is taken over. */
  downOwner?: Owner;
}

export interface KubeHandle {
  context: string;
  namespace: string;
  container: string;
  pods: string[];
  /** The API server's URL as the head pod reaches it (host-network pods); absent = in-cluster. */
  server?: string;
}

export function readHandle(c: ClusterRecord): ReachableHandle {
  if (!c.handle) throw new Error(`cluster ${c.name} has no connection details recorded; run "skydeck down ${c.name}" and launch again`);
  return JSON.parse(c.handle) as ReachableHandle;
}
