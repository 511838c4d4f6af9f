// The Resource SKUs API (GET /subscriptions/S/providers/Microsoft.Compute/skus) as ARM answers
// it: one entry per resource type, SKU and location, with capabilities as name/value strings
// and the subscription's restrictions. Honours `$filter=location eq 'x'`, the one filter it has.
import type { ArmModel, Json } from './model';

const LOCATIONS = ['eastus', 'westus2'];

type Row = [name: string, family: string, vcpus: number, memoryGb: number, extra?: { gpus?: number; arm?: boolean; restrictedIn?: string[] }];

const VMS: Row[] = [
  ['Standard_D2s_v5', 'standardDSv5Family', 2, 8], ['Standard_D4s_v5', 'standardDSv5Family', 4, 16],
  ['Standard_D8s_v5', 'standardDSv5Family', 8, 32], ['Standard_D4ps_v5', 'standardDPSv5Family', 4, 16, { arm: true }],
  ['Standard_NC4as_T4_v3', 'standardNCASv3_T4Family', 4, 28, { gpus: 1 }],
  ['Standard_NC24ads_A100_v4', 'StandardNCADSA100v4Family', 24, 220, { gpus: 1 }],
  // Not offered to this subscription in eastus, as many GPU sizes are not.
  ['Standard_NC6s_v3', 'standardNCSv3Family', 6, 112, { gpus: 1, restrictedIn: ['eastus'] }],
];

const requests = new WeakMap<ArmModel, number>();

/** How many SKU listings the fake has answered for this model. */
export function skuListings(m: ArmModel): number {
  return requests.get(m) ?? 0;
}

function vmSku(m: ArmModel, [name, family, vcpus, memoryGb, x = {}]: Row, location: string): Json {
  const restricted = x.restrictedIn?.includes(location) || m.restricted.has(location) || m.restricted.has(`${location}/${name}`);
  const caps: [string, string][] = [
    ['MaxResourceVolumeMB', '0'], ['OSVhdSizeMB', '1047552'], ['vCPUs', String(vcpus)], ['MemoryPreservingMaintenanceSupported', 'True'],
    ['HyperVGenerations', 'V1,V2'], ['MemoryGB', String(memoryGb)], ['MaxDataDiskCount', String(Math.min(64, vcpus * 2))],
    ['CpuArchitectureType', x.arm ? 'Arm64' : 'x64'], ['LowPriorityCapable', 'True'], ['PremiumIO', 'True'],
    ['vCPUsAvailable', String(vcpus)], ['vCPUsPerCore', x.arm ? '1' : '2'], ['EncryptionAtHostSupported', 'True'],
    ...(x.gpus ? [['GPUs', String(x.gpus)] as [string, string]] : []), ['AcceleratedNetworkingEnabled', 'True'],
  ];
  return {
    resourceType: 'virtualMachines', name, tier: 'Standard', size: name.replace(/^Standard_/, ''), family,
    locations: [location], locationInfo: [{ location, zones: ['1', '2', '3'], zoneDetails: [] }],
    capabilities: caps.map(([n, value]) => ({ name: n, value })),
    restrictions: restricted ? [{
      type: 'Location', values: [location], restrictionInfo: { locations: [location] }, reasonCode: 'NotAvailableForSubscription',
    }] : [],
  };
}

/** A managed-disk SKU: the listing mixes every Microsoft.Compute resource type. */
function diskSku(location: string): Json {
  return {
    resourceType: 'disks', name: 'Premium_LRS', tier: 'Premium', size: 'P10', family: 'PremiumSSD', locations: [location],
    locationInfo: [{ location, zones: ['1', '2', '3'], zoneDetails: [] }],
    capabilities: [{ name: 'MaxSizeGiB', value: '128' }, { name: 'MinSizeGiB', value: '64' }, { name: 'MaxIOps', value: '500' }], restrictions: [],
  };
}

/** Every SKU row the filter keeps; a listing counts once, however many pages it is read in. */
export function listSkus(m: ArmModel, query: URLSearchParams): Json {
  if (!query.has('$skiptoken')) requests.set(m, skuListings(m) + 1);
  const only = /location eq '([^']+)'/i.exec(query.get('$filter') ?? '')?.[1]?.toLowerCase();
  const value = LOCATIONS.filter((l) => !only || l === only).flatMap((l) => [...VMS.map((r) => vmSku(m, r, l)), diskSku(l)]);
  return { value };
}
