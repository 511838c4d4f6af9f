import { randomUUID } from 'node:crypto';
import type { PortRange } from '../../task';
import { gcpCall, isNotFound } from './errors';
import type { GcpClients } from './clients';
import { waitOperation, type WaitOptions } from './operations';
import type { Firewall, Operation } from './types';

// One ingress rule per cluster, "skydeck-<uid>", targeting the cluster's network tag: SSH plus
// the task's ports. Firewall rules are global and free; teardown deletes the rule.

export function firewallName(uid: string): string {
  return `skydeck-${uid.toLowerCase().replace(/[^a-z0-9-]/g, '')}`.slice(0, 63).replace(/-+$/, '');
}

/** The network tag on the cluster's instances (same rules as names; reused as the rule's target). */
export const netTagOf = firewallName;

function portSpecs(ports: PortRange[]): string[] {
  return ports.map((p) => (p.from === p.to ? `${p.from}` : `${p.from}-${p.to}`));
}

/** Creates the rule with SSH + `ports`, or widens an existing one to include `ports`. */
export async function ensureFirewall(c: GcpClients, w: WaitOptions, network: string, uid: string, ports: PortRange[]): Promise<void> {
  const name = firewallName(uid);
  const path = `projects/${w.project}/global/firewalls`;
  const existing = await gcpCall('firewalls.get', async () => {
    try {
      return await c.get<Firewall>(`${path}/${name}`);
    } catch (e) {
      if (isNotFound(e)) return undefined;
      throw e;
    }
  });
  const want = ['22', ...portSpecs(ports)];
  if (!existing) {
    const rule: Firewall = {
      name, network: `global/networks/${network}`, direction: 'INGRESS', priority: 1000,
      targetTags: [name], sourceRanges: ['0.0.0.0/0'], allowed: [{ IPProtocol: 'tcp', ports: want }],
      description: `Skydeck cluster ${uid}: SSH and the task's ports`,
    };
    const op = await gcpCall('firewalls.insert', () => c.post<Operation>(path, rule, { requestId: randomUUID() }));
    await waitOperation(c, 'firewalls.insert', op, w);
    return;
  }
  const have = new Set((existing.allowed ?? []).flatMap((a) => a.ports ?? []));
  if (want.every((p) => have.has(p))) return;
  const patch: Firewall = { allowed: [{ IPProtocol: 'tcp', ports: [...new Set([...have, ...want])] }] };
  const op = await gcpCall('firewalls.patch', () => c.patch<Operation>(`${path}/${name}`, patch, { requestId: randomUUID() }));
  await waitOperation(c, 'firewalls.patch', op, w);
}

/** Deletes the cluster's rule; an absent rule is what we wanted. */
export async function deleteFirewall(c: GcpClients, w: WaitOptions, uid: string): Promise<void> {
  const op = await gcpCall('firewalls.delete', async () => {
    try {
      return await c.delete<Operation>(`projects/${w.project}/global/firewalls/${firewallName(uid)}`, { requestId: randomUUID() });
    } catch (e) {
      if (isNotFound(e)) return undefined;
      throw e;
    }
  });
  if (op) await waitOperation(c, 'firewalls.delete', op, w);
}

// A managed-jobs controller's job clusters share one rule, skydeck-<uid>-jobs, made and deleted
// by this machine (jobsFirewall.ts).

/** The shared rule of controller `uid`'s job clusters: skydeck-<uid>-jobs, within GCP's 63 characters. */
export function jobsFirewallName(uid: string): string {
  return `${firewallName(uid).slice(0, 63 - '-jobs'.length)}-jobs`;
}

/** The rule `name`, or undefined when GCE answers 404. */
export async function getRule(c: GcpClients, project: string, name: string): Promise<Firewall | undefined> {
  return gcpCall('firewalls.get', async () => {
    try {
      return await c.get<Firewall>(`projects/${project}/global/firewalls/${name}`);
    } catch (e) {
      if (isNotFound(e)) return undefined;
      throw e;
    }
  });
}
