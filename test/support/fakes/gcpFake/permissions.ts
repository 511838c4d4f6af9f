// The IAM permissions GCP checks for each REST call the fake serves, written from the services'
// permission references (Compute Engine's "IAM permissions" per method, IAM v1, Resource
// Manager v1, Cloud Storage bucket IAM), not from Skydeck's role lists: a call made with an
// instance's token is refused unless its account holds every one (metadata.ts vmTokenCheck). A
// route this table does not know needs "unmapped …", which no role holds: a new call the
// provider makes fails there until someone says here what GCP checks for it.
import type { Json } from './model';
import type { ConditionResource } from './conditions';

/** Public images: any authenticated caller may boot them (compute.images.useReadOnly is granted on them to all). */
const PUBLIC_IMAGE = /^projects\/(ubuntu-os-cloud|debian-cloud|cos-cloud)\//;

export interface Needed {
  permissions: string[];
  /** Where IAM checks them, for the 403's message and a condition's resource.name. */
  resource: string;
  /** A permission checked on another resource than `resource` (instances.insert: the boot disk, the subnet…). */
  on?: Record<string, string>;
}

/**
 * What an IAM Condition sees of a resource path (resource.type, resource.name), for the
 * types conditions-resource-attributes lists that the fake serves; others have no type ("").
 */
export function conditionResource(path: string): ConditionResource {
  const types: [RegExp, string][] = [
    [/^projects\/[^/]+\/zones\/[^/]+\/instances\/[^/]+$/, 'compute.googleapis.com/Instance'],
    [/^projects\/[^/]+\/zones\/[^/]+\/disks\/[^/]+$/, 'compute.googleapis.com/Disk'],
    [/^projects\/[^/]+\/global\/firewalls\/[^/]+$/, 'compute.googleapis.com/Firewall'],
    [/^projects\/[^/]+\/regions\/[^/]+\/subnetworks\/[^/]+$/, 'compute.googleapis.com/Subnetwork'],
    [/^projects\/[^/]+\/global\/images\/.+$/, 'compute.googleapis.com/Image'],
    [/^projects\/[^/]+$/, 'cloudresourcemanager.googleapis.com/Project'],
  ];
  return { type: types.find(([re]) => re.test(path))?.[1] ?? '', name: path };
}

/** Where `permission` of `n` is checked. */
export const resourceOf = (n: Needed, permission: string) => n.on?.[permission] ?? n.resource;

/** What `method path` (with its JSON body) needs; path as the server saw it (/compute/v1/…, /v1/…, /storage/v1/…). */
export function permissionsFor(method: string, path: string, body?: Json): Needed {
  if (path.startsWith('/compute/v1/')) return compute(method, path.slice('/compute/v1/'.length), body);
  if (path.startsWith('/storage/v1/')) {
    const bucket = /^\/storage\/v1\/b\/([^/]+)\/iam$/.exec(path)?.[1];
    const p = method === 'GET' ? 'storage.buckets.getIamPolicy' : method === 'PUT' ? 'storage.buckets.setIamPolicy' : undefined;
    return { permissions: [bucket && p ? p : `unmapped ${method} ${path}`], resource: `projects/_/buckets/${bucket ?? '?'}` };
  }
  const accountPolicy = /^\/v1\/projects\/([^/]+)\/serviceAccounts\/([^/:]+):(getIamPolicy|setIamPolicy)$/.exec(path);
  if (accountPolicy) return { permissions: [`iam.serviceAccounts.${accountPolicy[3]}`], resource: `projects/${accountPolicy[1]}/serviceAccounts/${accountPolicy[2]}` };
  const policy = /^\/v1\/projects\/([^/:]+):(getIamPolicy|setIamPolicy)$/.exec(path);
  if (policy) return { permissions: [`resourcemanager.projects.${policy[2]}`], resource: `projects/${policy[1]}` };
  const m = /^\/v1\/projects\/([^/]+)\/(.*)$/.exec(path);
  const rest = (m?.[2] ?? '').split('/');
  const route = `${method} ${rest.map((p, i) => (i % 2 ? '*' : p)).join('/')}`;
  const table: Record<string, string> = {
    'GET serviceAccounts': 'iam.serviceAccounts.list', 'POST serviceAccounts': 'iam.serviceAccounts.create',
    'GET serviceAccounts/*': 'iam.serviceAccounts.get', 'DELETE serviceAccounts/*': 'iam.serviceAccounts.delete',
    'GET roles/*': 'iam.roles.get', 'POST roles': 'iam.roles.create', 'PATCH roles/*': 'iam.roles.update',
  };
  return { permissions: [table[route] ?? `unmapped ${route}`], resource: m ? `projects/${m[1]}/${m[2]}` : path };
}

function compute(method: string, rel: string, body?: Json): Needed {
  const p = rel.split('/');
  const project = p.slice(0, 2).join('/');
  // Collections and ids alternate after an optional scope word, as the server routes them: zones/*/instances/*, global/firewalls/*.
  const parts = p.slice(2);
  const scoped = parts[0] === 'global' || parts[0] === 'aggregated' ? 1 : 0;
  const route = `${method} ${parts.map((x, i) => (i >= scoped && (i - scoped) % 2 === 1 ? '*' : x)).join('/')}`;
  const one: Record<string, string> = {
    'GET zones': 'compute.zones.list', 'GET zones/*/machineTypes': 'compute.machineTypes.list',
    'GET zones/*/instances': 'compute.instances.list', 'GET aggregated/instances': 'compute.instances.list',
    'GET zones/*/instances/*': 'compute.instances.get', 'DELETE zones/*/instances/*': 'compute.instances.delete',
    'POST zones/*/instances/*/stop': 'compute.instances.stop', 'POST zones/*/instances/*/start': 'compute.instances.start',
    'POST zones/*/instances/*/resume': 'compute.instances.resume',
    'POST zones/*/instances/*/setMetadata': 'compute.instances.setMetadata', 'POST zones/*/instances/*/setLabels': 'compute.instances.setLabels',
    'POST zones/*/instances/*/setTags': 'compute.instances.setTags',
    'GET zones/*/operations/*': 'compute.zoneOperations.get', 'POST zones/*/operations/*/wait': 'compute.zoneOperations.get',
    'GET global/operations/*': 'compute.globalOperations.get', 'POST global/operations/*/wait': 'compute.globalOperations.get',
    'GET global/firewalls': 'compute.firewalls.list', 'GET global/firewalls/*': 'compute.firewalls.get',
  };
  const list = /\.list$/;
  if (one[route]) return { permissions: [one[route]], resource: list.test(one[route]) ? project : rel.split('/').slice(0, 6).join('/') };
  // A firewall rule is created, changed or deleted on its network too.
  const firewall: Record<string, string> = {
    'POST global/firewalls': 'compute.firewalls.create', 'PATCH global/firewalls/*': 'compute.firewalls.update',
    'PUT global/firewalls/*': 'compute.firewalls.update', 'DELETE global/firewalls/*': 'compute.firewalls.delete',
  };
  if (firewall[route]) return { permissions: [firewall[route], 'compute.networks.updatePolicy'], resource: rel };
  if (route === 'POST zones/*/instances') return insertPermissions(project, parts[1], body ?? {});
  // instances.setServiceAccount: on the instance, and actAs on the account it attaches (if any).
  if (route === 'POST zones/*/instances/*/setServiceAccount') {
    const email = String((body ?? {}).email ?? '');
    return {
      permissions: ['compute.instances.setServiceAccount', ...(email ? ['iam.serviceAccounts.actAs'] : [])],
      resource: rel.split('/').slice(0, 6).join('/'), on: { 'iam.serviceAccounts.actAs': `${project}/serviceAccounts/${email}` },
    };
  }
  return { permissions: [`unmapped ${route}`], resource: rel };
}

/**
 * instances.insert: the VM, and each thing the request sets or uses on it (Compute's "Required
 * permissions" for it), each checked where GCP checks it: the new instance's own name (so a
 * condition on names bounds creation), its new disks' names (a boot disk takes the instance's
 * name unless initializeParams.diskName says otherwise), the image, the subnetwork.
 */
function insertPermissions(project: string, zone: string, b: Json): Needed {
  const name = String(b.name ?? '');
  const resource = `${project}/zones/${zone}/instances/${name}`;
  const on: Record<string, string> = {};
  const out = ['compute.instances.create'];
  const disks = (b.disks ?? []) as Json[];
  disks.forEach((d, n) => {
    const init = d.initializeParams as Json | undefined;
    if (!init) return;
    const disk = `${project}/zones/${zone}/disks/${String(init.diskName ?? (d.boot || n === 0 ? name : `${name}-${n}`))}`;
    out.push('compute.disks.create');
    on['compute.disks.create'] = disk;
    if (init.labels && Object.keys(init.labels as Json).length) {
      out.push('compute.disks.setLabels');
      on['compute.disks.setLabels'] = disk;
    }
    const image = String(init.sourceImage ?? '');
    if (image && !PUBLIC_IMAGE.test(image)) {
      out.push('compute.images.useReadOnly');
      on['compute.images.useReadOnly'] = image.replace(/^https:\/\/[^/]+\/compute\/v1\//, '');
    }
  });
  if (((b.metadata as Json | undefined)?.items as unknown[] | undefined)?.length) out.push('compute.instances.setMetadata');
  if (((b.tags as Json | undefined)?.items as unknown[] | undefined)?.length) out.push('compute.instances.setTags');
  if (b.labels && Object.keys(b.labels as Json).length) out.push('compute.instances.setLabels');
  const nics = (b.networkInterfaces ?? []) as Json[];
  // The default network is a VPC: its region's subnet is used, and an external IP on it.
  const subnet = `${project}/regions/${zone.replace(/-[a-z]$/, '')}/subnetworks/default`;
  if (nics.length) {
    out.push('compute.subnetworks.use');
    on['compute.subnetworks.use'] = subnet;
  }
  if (nics.some((n) => ((n.accessConfigs ?? []) as unknown[]).length)) {
    out.push('compute.subnetworks.useExternalIp');
    on['compute.subnetworks.useExternalIp'] = subnet;
  }
  // iam.serviceAccounts.actAs is checked on the account attached (a VM carries one), not the project.
  const accounts = (b.serviceAccounts ?? []) as Json[];
  if (accounts.length) {
    out.push('compute.instances.setServiceAccount', 'iam.serviceAccounts.actAs');
    on['iam.serviceAccounts.actAs'] = `${project}/serviceAccounts/${String(accounts[0].email ?? '')}`;
  }
  return { permissions: [...new Set(out)], resource, on };
}

