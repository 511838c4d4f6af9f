import type { InstanceType } from './types';

// Azure's common VM sizes, so `accelerators: T4:1` or `cpus: 4+` resolve with no network.
// Prices are approximate eastus Linux pay-as-you-go list prices (USD/h), only used to rank.
type Row = [name: string, vcpus: number, memoryGb: number, price: number, gpu?: [string, number, number] | null, arch?: 'arm64'];

const ROWS: Row[] = [
  ['Standard_D2s_v5', 2, 8, 0.096], ['Standard_D4s_v5', 4, 16, 0.192], ['Standard_D8s_v5', 8, 32, 0.384],
  ['Standard_D16s_v5', 16, 64, 0.768], ['Standard_D32s_v5', 32, 128, 1.536], ['Standard_D64s_v5', 64, 256, 3.072],
  ['Standard_E2s_v5', 2, 16, 0.126], ['Standard_E4s_v5', 4, 32, 0.252], ['Standard_E8s_v5', 8, 64, 0.504], ['Standard_E16s_v5', 16, 128, 1.008],
  ['Standard_F4s_v2', 4, 8, 0.169], ['Standard_F8s_v2', 8, 16, 0.338], ['Standard_F16s_v2', 16, 32, 0.677],
  ['Standard_NC4as_T4_v3', 4, 28, 0.526, ['T4', 1, 16]], ['Standard_NC8as_T4_v3', 8, 56, 0.752, ['T4', 1, 16]],
  ['Standard_NC16as_T4_v3', 16, 110, 1.204, ['T4', 1, 16]], ['Standard_NC64as_T4_v3', 64, 440, 4.352, ['T4', 4, 16]],
  ['Standard_NC6s_v3', 6, 112, 3.06, ['V100', 1, 16]], ['Standard_NC12s_v3', 12, 224, 6.12, ['V100', 2, 16]],
  ['Standard_NC24s_v3', 24, 448, 12.24, ['V100', 4, 16]],
  ['Standard_NV36ads_A10_v5', 36, 440, 3.2, ['A10', 1, 24]],
  ['Standard_NC24ads_A100_v4', 24, 220, 3.673, ['A100-80GB', 1, 80]], ['Standard_NC48ads_A100_v4', 48, 440, 7.346, ['A100-80GB', 2, 80]],
  ['Standard_NC96ads_A100_v4', 96, 880, 14.692, ['A100-80GB', 4, 80]],
  ['Standard_ND96asr_v4', 96, 900, 27.197, ['A100', 8, 40]], ['Standard_ND96amsr_A100_v4', 96, 1900, 32.77, ['A100-80GB', 8, 80]],
  ['Standard_ND96isr_H100_v5', 96, 1900, 98.32, ['H100', 8, 80]],
  // Burstable (B-series): named by instance_type only (the managed-jobs controller VM), never
  // picked for a cpus/memory request: a spent CPU credit balance leaves a fraction of the vCPUs.
  ['Standard_B2s', 2, 4, 0.0416], ['Standard_B2pls_v2', 2, 4, 0.034, null, 'arm64'],
];

/** Burstable sizes, which a shape request never picks (vm.ts). */
export const isBurstable = (name: string): boolean => /^Standard_B\d/i.test(name);

// Spot (approximate, eastus Linux, read with the pay-as-you-go figures): Azure's spot prices
// move with capacity and the Resource SKUs listing Skydeck reads carries no prices, so these
// are each family's spot price as a share of pay-as-you-go. The price book marks every figure
// from here as shipped and approximate.
const SPOT_SHARE: [RegExp, number][] = [
  [/^Standard_[DEF]\d+s_v[25]$/, 0.2], [/_T4_v3$/, 0.3], [/^Standard_NC\d+s_v3$/, 0.3], [/_A10_v5$/, 0.3],
  [/A100_v4$|^Standard_ND96asr_v4$/, 0.4], [/_H100_v5$/, 0.45],
];

function spotOf(name: string, price: number): number | undefined {
  const share = SPOT_SHARE.find(([re]) => re.test(name))?.[1];
  return share === undefined ? undefined : Math.round(price * share * 10_000) / 10_000;
}

export const AZURE_SHIPPED: readonly InstanceType[] = ROWS.map(([name, vcpus, memoryGb, price, gpu, arch]) => ({
  cloud: 'azure', name, vcpus, memoryGb, price, spotPrice: spotOf(name, price), arch: arch ?? 'x86_64', currentGeneration: true,
  ...(gpu ? { gpus: { name: gpu[0], count: gpu[1], memoryGb: gpu[2] } } : {}),
  ...(isBurstable(name) ? { namedOnly: true } : {}),
}));

const BY_NAME = new Map(AZURE_SHIPPED.map((t) => [t.name.toLowerCase(), t]));

/** The shipped price of a size, if known (the sweep's cost hint). Azure size names are case-insensitive. */
export function azureShippedPrice(name: string | undefined): number | undefined {
  return name ? BY_NAME.get(name.toLowerCase())?.price : undefined;
}
