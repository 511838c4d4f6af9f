import type { PortRange } from '../../task';
import type { AzureClients } from './clients';
import { azCall, azureCode, isNotFound } from './errors';
import { ipName, netNames, nicName, SUBNET } from './names';

// The cluster's network, all inside its resource group: a VNet with one subnet guarded by an
// NSG (SSH + the task's ports), and per VM a Standard static public IP and a NIC. Deleting a
// single VM frees them too: the VM's NIC reference says Delete (vm.ts), and so does the NIC's
// reference to the IP, the one place the network RP honours it (the IP's own deleteOption is
// ignored: azure-rest-api-specs#25475).

export interface NetCtx {
  c: AzureClients;
  group: string;
  location: string;
  tags: Record<string, string>;
  lro: { updateIntervalInMs: number };
  /** In a controller's shared jobs group: the cluster's uid, which names its own VNet and NSG there (names.ts netNames). */
  sharedUid?: string;
}

const SSH_RULE = { name: 'ssh', protocol: 'Tcp' as const, sourcePortRange: '*', destinationPortRange: '22', sourceAddressPrefix: '*',
  destinationAddressPrefix: '*', access: 'Allow' as const, priority: 1000, direction: 'Inbound' as const };

/** NSG then VNet/subnet (the subnet references the NSG); returns the subnet id. */
export async function ensureNetwork(x: NetCtx): Promise<string> {
  const { vnet: VNET, nsg: NSG } = netNames(x.sharedUid);
  const nsg = await azCall('networkSecurityGroups.createOrUpdate', () => x.c.network.networkSecurityGroups.beginCreateOrUpdateAndWait(x.group, NSG, {
    location: x.location, tags: x.tags, securityRules: [SSH_RULE],
  }, x.lro));
  const vnet = await azCall('virtualNetworks.createOrUpdate', () => x.c.network.virtualNetworks.beginCreateOrUpdateAndWait(x.group, VNET, {
    location: x.location, tags: x.tags, addressSpace: { addressPrefixes: ['10.0.0.0/16'] },
    subnets: [{ name: SUBNET, addressPrefix: '10.0.0.0/24', networkSecurityGroup: { id: nsg.id } }],
  }, x.lro));
  const subnet = vnet.subnets?.find((s) => s.name === SUBNET)?.id;
  return subnet ?? `${vnet.id}/subnets/${SUBNET}`;
}

/** A public IP and a NIC for one VM; returns the NIC id. */
export async function createNic(x: NetCtx, vm: string, subnetId: string, zone?: string): Promise<string> {
  const ip = await azCall('publicIPAddresses.createOrUpdate', () => x.c.network.publicIPAddresses.beginCreateOrUpdateAndWait(x.group, ipName(vm), {
    location: x.location, tags: x.tags, sku: { name: 'Standard' }, publicIPAllocationMethod: 'Static', ...(zone ? { zones: [zone] } : {}),
  }, x.lro));
  const nic = await azCall('networkInterfaces.createOrUpdate', () => x.c.network.networkInterfaces.beginCreateOrUpdateAndWait(x.group, nicName(vm), {
    location: x.location, tags: x.tags,
    ipConfigurations: [{ name: 'ipconfig1', primary: true, subnet: { id: subnetId }, privateIPAllocationMethod: 'Dynamic', publicIPAddress: { id: ip.id, deleteOption: 'Delete' } }],
  }, x.lro));
  return nic.id!;
}

/** Adds an allow rule per port range not yet open (priorities after SSH's). */
export async function openNsgPorts(c: AzureClients, group: string, ports: PortRange[], lro: NetCtx['lro'], sharedUid?: string): Promise<void> {
  const NSG = netNames(sharedUid).nsg;
  const rules: { name?: string; destinationPortRange?: string; priority?: number }[] = [];
  for await (const r of c.network.securityRules.list(group, NSG)) rules.push(r);
  const open = new Set(rules.map((r) => r.destinationPortRange));
  let priority = Math.max(1000, ...rules.map((r) => r.priority ?? 0));
  for (const p of ports) {
    const range = p.from === p.to ? `${p.from}` : `${p.from}-${p.to}`;
    if (open.has(range)) continue;
    priority += 10;
    await azCall('securityRules.createOrUpdate', () => c.network.securityRules.beginCreateOrUpdateAndWait(group, NSG, `port-${range}`, {
      ...SSH_RULE, name: `port-${range}`, destinationPortRange: range, priority,
    }, lro));
    open.add(range);
  }
}

/**
 * A cluster's VNet then its NSG in a shared jobs group (its VMs and their NICs gone first: a
 * subnet in use cannot be deleted); one already gone is fine, and so is one still in use (a NIC
 * whose delete is under way): free to keep, ended by the next terminate or with the group at
 * the controller's down (the proof is about what bills).
 */
export async function deleteNetwork(c: AzureClients, group: string, uid: string, lro: NetCtx['lro']): Promise<void> {
  const { vnet, nsg } = netNames(uid);
  const gone = (e: unknown) => {
    if (!isNotFound(e) && !/^InUse/.test(azureCode(e).code)) throw e;
  };
  await azCall('virtualNetworks.delete', () => c.network.virtualNetworks.beginDeleteAndWait(group, vnet, lro).catch(gone));
  await azCall('networkSecurityGroups.delete', () => c.network.networkSecurityGroups.beginDeleteAndWait(group, nsg, lro).catch(gone));
}

/** Public and private IP per VM name, read from the group's IPs and NICs (two calls, any cluster size). */
export async function addressesOf(c: AzureClients, group: string): Promise<Map<string, { publicIp?: string; privateIp?: string }>> {
  const out = new Map<string, { publicIp?: string; privateIp?: string }>();
  const ips = new Map<string, string>();
  for await (const ip of c.network.publicIPAddresses.list(group)) if (ip.name && ip.ipAddress) ips.set(ip.name, ip.ipAddress);
  for await (const nic of c.network.networkInterfaces.list(group)) {
    const vm = nic.name?.replace(/-nic$/, '');
    if (!vm) continue;
    const cfg = nic.ipConfigurations?.[0];
    out.set(vm, { publicIp: ips.get(ipName(vm)), privateIp: cfg?.privateIPAddress });
  }
  return out;
}
