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
      }
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
