import type { InstanceType } from './types';

// GCP's common machine types, so `accelerators: L4:1` or `cpus: 4+` resolve with no network.
// Prices are approximate us-central1 on-demand list prices (USD/h), only used to rank.
// GPUs come two ways on GCP: built into the machine type (a2 = A100, a3 = H100, g2 = L4), or
// attached to an N1 machine as guest accelerators (T4, V100, P100). Rows of the second kind
// share the N1 name with the GPU-less row; launch reads the row's `gpus` to attach them.
type Row = [name: string, vcpus: number, memoryGb: number, price: number, gpu?: [string, number, number]];

const T4 = 0.35;
const V100 = 2.48;

// Spot (approximate, us-central1, read with the on-demand figures): GCP's spot prices move
// (up to monthly) and no API Skydeck reads gives them (machineTypes.list carries no prices), so
// these are the machine's spot price as a share of on-demand per series, and the attached GPUs'
// own spot prices (N1 no lower than E2, so a previous-generation machine never wins a plain CPU
// request on spot alone). The price book marks every figure from here as shipped and approximate.
const SPOT_SHARE: [RegExp, number][] = [[/^e2-/, 0.3], [/^n2-/, 0.24], [/^n1-/, 0.3], [/^a2-/, 0.3], [/^a3-/, 0.27], [/^g2-/, 0.4]];
const GUEST: Record<string, { price: number; spot: number }> = { T4: { price: T4, spot: 0.14 }, V100: { price: V100, spot: 0.74 } };

function spotOf(name: string, price: number, gpu: Row[4]): number | undefined {
  const share = SPOT_SHARE.find(([re]) => re.test(name))?.[1];
  if (share === undefined) return undefined;
  const guest = gpu && gcpAttachesGpus(name) ? GUEST[gpu[0]] : undefined;
  // An N1 row's price is the machine plus its attached GPUs: each part at its own spot price.
  if (guest && gpu) return round((price - gpu[1] * guest.price) * share + gpu[1] * guest.spot);
  return round(price * share);
}

const round = (x: number) => Math.round(x * 10_000) / 10_000;

const ROWS: Row[] = [
  ['e2-standard-2', 2, 8, 0.067], ['e2-standard-4', 4, 16, 0.134], ['e2-standard-8', 8, 32, 0.268], ['e2-standard-16', 16, 64, 0.536],
  ['n2-standard-2', 2, 8, 0.097], ['n2-standard-4', 4, 16, 0.194], ['n2-standard-8', 8, 32, 0.388],
  ['n2-standard-16', 16, 64, 0.777], ['n2-standard-32', 32, 128, 1.554], ['n2-standard-64', 64, 256, 3.108],
  ['n2-highmem-2', 2, 16, 0.131], ['n2-highmem-4', 4, 32, 0.262], ['n2-highmem-8', 8, 64, 0.524], ['n2-highmem-16', 16, 128, 1.048],
  ['n2-highcpu-8', 8, 8, 0.287], ['n2-highcpu-16', 16, 16, 0.574],
  ['n1-standard-4', 4, 15, 0.19], ['n1-standard-8', 8, 30, 0.38], ['n1-standard-16', 16, 60, 0.76], ['n1-standard-32', 32, 120, 1.52],
  ['n1-standard-4', 4, 15, 0.19 + T4, ['T4', 1, 16]], ['n1-standard-8', 8, 30, 0.38 + T4, ['T4', 1, 16]],
  ['n1-standard-16', 16, 60, 0.76 + 2 * T4, ['T4', 2, 16]], ['n1-standard-32', 32, 120, 1.52 + 4 * T4, ['T4', 4, 16]],
  ['n1-standard-8', 8, 30, 0.38 + V100, ['V100', 1, 16]], ['n1-standard-16', 16, 60, 0.76 + 2 * V100, ['V100', 2, 16]],
  ['n1-standard-32', 32, 120, 1.52 + 4 * V100, ['V100', 4, 16]], ['n1-standard-64', 64, 240, 3.04 + 8 * V100, ['V100', 8, 16]],
  ['a2-highgpu-1g', 12, 85, 3.67, ['A100', 1, 40]], ['a2-highgpu-2g', 24, 170, 7.35, ['A100', 2, 40]],
  ['a2-highgpu-4g', 48, 340, 14.69, ['A100', 4, 40]], ['a2-highgpu-8g', 96, 680, 29.39, ['A100', 8, 40]],
  ['a2-ultragpu-8g', 96, 1360, 40.22, ['A100-80GB', 8, 80]], ['a3-highgpu-8g', 208, 1872, 88.25, ['H100', 8, 80]],
  ['g2-standard-4', 4, 16, 0.71, ['L4', 1, 24]], ['g2-standard-8', 8, 32, 0.85, ['L4', 1, 24]],
  ['g2-standard-24', 24, 96, 2.0, ['L4', 2, 24]], ['g2-standard-48', 48, 192, 4.0, ['L4', 4, 24]], ['g2-standard-96', 96, 384, 8.0, ['L4', 8, 24]],
];

/**
 * Types resolved by name only (instance_type; the price book, a zone's "does not exist" read as
 * capacity), never picked for a cpus/memory request (`namedOnly`, kept through a fetched
 * catalog by withPrices): the shared-core e2-small and the Arm t2a-standard-1 are the
 * managed-jobs controller's (managed/remote/controllerCluster.ts), and a shape request should
 * not land on a burstable or an Arm machine by price alone.
 */
const NAMED_ONLY: readonly InstanceType[] = [
  { cloud: 'gcp', name: 'e2-small', vcpus: 2, memoryGb: 2, price: 0.0168, spotPrice: round(0.0168 * 0.3), arch: 'x86_64', currentGeneration: true, namedOnly: true },
  { cloud: 'gcp', name: 't2a-standard-1', vcpus: 1, memoryGb: 4, price: 0.0385, arch: 'arm64', currentGeneration: true, namedOnly: true },
];

export const GCP_SHIPPED: readonly InstanceType[] = [
  ...ROWS.map(([name, vcpus, memoryGb, price, gpu]): InstanceType => ({
    cloud: 'gcp', name, vcpus, memoryGb, price, spotPrice: spotOf(name, price, gpu), arch: 'x86_64', currentGeneration: !/^n1-/.test(name) || !!gpu,
    ...(gpu ? { gpus: { name: gpu[0], count: gpu[1], memoryGb: gpu[2] } } : {}),
  })),
  ...NAMED_ONLY,
];

/** Arm machine types are named by series (Ampere Altra, Axion); everything else GCP offers is x86. */
export function gcpArmType(machineType: string): boolean {
  return /^(t2a|c4a|n4a)-/.test(machineType);
}

/** GCP accelerator type names of the GPUs that are attached to N1 machines. */
export const GCP_GUEST_ACCELERATORS: Record<string, string> = {
  T4: 'nvidia-tesla-t4', V100: 'nvidia-tesla-v100', P100: 'nvidia-tesla-p100', P4: 'nvidia-tesla-p4', K80: 'nvidia-tesla-k80',
};

/** Whether a machine type's GPUs are attached (N1) rather than built in (a2, a3, g2). */
export function gcpAttachesGpus(machineType: string): boolean {
  return /^n1-/.test(machineType);
}

/** The shipped price of a machine type plus attached GPUs, if known (the sweep's cost hint). */
export function gcpShippedPrice(machineType: string | undefined, gpus?: { name: string; count: number }): number | undefined {
  if (!machineType) return undefined;
  const row = GCP_SHIPPED.find((t) => t.name === machineType && (gpus ? t.gpus?.name === gpus.name && t.gpus.count === gpus.count : !t.gpus));
  return row?.price;
}
