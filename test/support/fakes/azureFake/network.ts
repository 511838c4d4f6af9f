// Microsoft.Network resources the provider creates, with the server-side fields Azure fills in
// (ids of subnets and rules, public and private addresses) and reference checks.
import { ArmError, badReference } from './bodies';
import type { ArmModel, Json } from './model';

const collect = (m: ArmModel, id: string, r: Json): Json => {
  const list = (r.properties?.securityRules ?? []) as Json[];
  for (const rule of list) Object.assign(rule, { id: `${id}/securityRules/${rule.name}`, type: 'Microsoft.Network/networkSecurityGroups/securityRules' });
  return r;
};

/** Stores a network resource from a PUT body; returns it with provisioningState Updating. */
export function putNetwork(m: ArmModel, id: string, type: string, name: string, body: Json): Json {
  const existing = m.get(id);
  const r: Json = { ...body, id, name, type: `Microsoft.Network/${type}`, etag: `W/"${Date.now()}"`, properties: { ...(body.properties ?? {}) } };
  const p = r.properties;
  switch (type) {
    case 'virtualNetworks':
      for (const s of (p.subnets ?? []) as Json[]) {
        Object.assign(s, { id: `${id}/subnets/${s.name}`, type: 'Microsoft.Network/virtualNetworks/subnets' });
        s.properties = { ...(s.properties ?? {}), provisioningState: 'Succeeded' };
        const nsg = s.properties.networkSecurityGroup?.id;
        if (nsg && !m.get(nsg)) throw badReference(nsg, id);
      }
      break;
    case 'networkSecurityGroups':
      collect(m, id, r);
      break;
    case 'publicIPAddresses':
      p.ipAddress = existing?.properties?.ipAddress ?? `198.51.100.${m.nextIp() & 255}`; // TEST-NET-2: never connected to
      // publicIpAddress.json PublicIPAddressPropertiesFormat.deleteOption is in the schema, but
      // the network RP ignores it on the IP's own PUT (not stored, not echoed, no effect on a VM
      // delete: azure-rest-api-specs#25475, azure-cli#20592); it works only on a NIC's
      // reference to the IP (below). The fake drops it, as Azure does.
      delete p.deleteOption;
      if (existing?.properties?.ipConfiguration) p.ipConfiguration = existing.properties.ipConfiguration;
      break;
    case 'networkInterfaces':
      for (const cfg of (p.ipConfigurations ?? []) as Json[]) {
        const c = (cfg.properties ??= {});
        const subnet = c.subnet?.id as string | undefined;
        const vnet = subnet ? m.get(subnet.replace(/\/subnets\/[^/]+$/i, '')) : undefined;
        if (!subnet || !vnet?.properties?.subnets?.some((s: Json) => String(s.id).toLowerCase() === subnet.toLowerCase())) throw badReference(String(subnet), id);
        const ip = c.publicIPAddress?.id as string | undefined;
        if (ip && !m.get(ip)) throw badReference(ip, id);
        c.privateIPAddress = existing?.properties?.ipConfigurations?.[0]?.properties?.privateIPAddress ?? `10.0.0.${(m.nextIp() & 255) + 3}`;
        cfg.id = `${id}/ipConfigurations/${cfg.name}`;
        if (ip) {
          // networkInterface.json NetworkInterfaceIPConfigurationPropertiesFormat.publicIPAddress
          // is a reference: only its id is used, but the RP keeps properties.deleteOption on it
          // ("what happens to the public IP when the VM using it is deleted"; read back on the
          // NIC, azure-sdk-for-java#38806/#39096). The IP records the configuration using it.
          const del = c.publicIPAddress.properties?.deleteOption;
          c.publicIPAddress = { id: ip, ...(del ? { properties: { deleteOption: del } } : {}) };
          m.get(ip)!.properties.ipConfiguration = { id: cfg.id };
        }
      }
      if (existing?.properties?.virtualMachine) p.virtualMachine = existing.properties.virtualMachine;
      break;
    default:
      throw new ArmError(400, 'NoRegisteredProviderFound', `No registered resource provider found for location and resource type '${type}'.`);
  }
  p.provisioningState = 'Updating';
  return m.put(r);
}

/** PUT …/networkSecurityGroups/NSG/securityRules/NAME: the rule lives inside its NSG. */
export function putRule(m: ArmModel, nsgId: string, name: string, body: Json): Json {
  const nsg = m.get(nsgId);
  if (!nsg) throw new ArmError(404, 'ResourceNotFound', `The Resource 'Microsoft.Network/networkSecurityGroups/${nsgId.split('/').pop()}' was not found.`);
  const rules = ((nsg.properties.securityRules ??= []) as Json[]).filter((r) => r.name !== name);
  const rule = { ...body, name, properties: { ...(body.properties ?? {}), provisioningState: 'Succeeded' } };
  const clash = rules.find((r) => r.properties?.priority === rule.properties.priority && r.properties?.direction === rule.properties.direction);
  if (clash) {
    throw new ArmError(400, 'SecurityRuleConflict', `Security rule ${name} conflicts with rule ${clash.name}. Rules cannot have the same Priority and Direction.`);
  }
  nsg.properties.securityRules = [...rules, rule];
  collect(m, nsgId, nsg);
  return rule;
}

/**
 * DELETE of a network resource: refused while in use, as the network RP does (a NIC attached
 * to a VM: NicInUse; an IP on a NIC's configuration: PublicIPAddressInUse; a VNet with a NIC in
 * a subnet: InUseSubnetCannotBeDeleted; an NSG a subnet names:
 * InUseNetworkSecurityGroupCannotBeDeleted); a NIC's removal frees its IPs. Returns what to run
 * when the operation completes.
 */
export function deleteNetwork(m: ArmModel, r: Json): () => void {
  const low = String(r.id).toLowerCase();
  const type = String(r.type).toLowerCase();
  // A VNet whose subnet a NIC is in, an NSG a subnet names: refused, as the network RP does.
  if (type === 'microsoft.network/virtualnetworks') {
    const nic = [...m.resources.values()].find((n) => n.type === 'Microsoft.Network/networkInterfaces'
      && (n.properties?.ipConfigurations ?? []).some((c: Json) => String(c.properties?.subnet?.id ?? '').toLowerCase().startsWith(`${low}/subnets/`)));
    if (nic) throw new ArmError(400, 'InUseSubnetCannotBeDeleted', `Subnet default is in use by ${nic.id}/ipConfigurations/ipconfig1 and cannot be deleted. In order to delete the subnet, delete all the resources within the subnet. See aka.ms/deletesubnet.`);
  }
  if (type === 'microsoft.network/networksecuritygroups') {
    const vnet = [...m.resources.values()].find((v) => v.type === 'Microsoft.Network/virtualNetworks'
      && (v.properties?.subnets ?? []).some((sn: Json) => String(sn.properties?.networkSecurityGroup?.id ?? '').toLowerCase() === low));
    if (vnet) throw new ArmError(400, 'InUseNetworkSecurityGroupCannotBeDeleted', `Network security group ${r.id} cannot be deleted because it is in use by the following resources: ${vnet.id}/subnets/default.`);
  }
  const vm = r.properties?.virtualMachine?.id;
  if (vm && m.get(vm)) {
    throw new ArmError(400, 'NicInUse', `Network Interface ${r.id} is used by existing resource ${vm}. In order to delete the network interface, it must be dissociated from the resource. To learn more, see aka.ms/deletenic.`);
  }
  const cfg = r.properties?.ipConfiguration?.id as string | undefined;
  if (cfg && m.get(cfg.replace(/\/ipConfigurations\/[^/]+$/i, ''))) {
    throw new ArmError(400, 'PublicIPAddressInUse', `Public IP address ${r.id} can not be deleted since it is still allocated to resource ${cfg}. In order to delete the public IP, disassociate/detach the Public IP address from the resource.  To learn how to do this, see aka.ms/deletepublicip.`);
  }
  return () => removeNetwork(m, r, false);
}

/** Removes a resource; for a NIC, frees its IPs, or (`withIps`, a VM delete) removes those whose reference says Delete. */
export function removeNetwork(m: ArmModel, r: Json, withIps: boolean): void {
  m.remove(r.id);
  for (const cfg of (r.properties?.ipConfigurations ?? []) as Json[]) {
    const ref = cfg.properties?.publicIPAddress;
    const ip = ref?.id ? m.get(ref.id) : undefined;
    if (!ip) continue;
    if (withIps && ref.properties?.deleteOption === 'Delete') m.remove(ip.id);
    else delete ip.properties.ipConfiguration;
  }
}
