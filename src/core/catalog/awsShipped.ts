import type { InstanceType } from './types';

// A small shipped table so common requests (`accelerators: V100:1`, `cpus: 4+`) resolve with
// no network and so choices can be cheapest-first. Prices are approximate us-east-1 on-demand
// list prices (USD/h) and are only used to rank; other regions differ by a few percent.
type Row = [name: string, vcpus: number, memoryGb: number, price: number, gpu?: [string, number, number]];

const ROWS: Row[] = [
  // Burstable types only at 2 vCPUs: bigger ones throttle under sustained load, which is
  // what jobs are, so they should not win "cpus: 8+" on price.
  ['t3.micro', 2, 1, 0.0104], ['t3.small', 2, 2, 0.0208], ['t3.medium', 2, 4, 0.0416], ['t3.large', 2, 8, 0.0832],
  ['m6i.large', 2, 8, 0.096], ['m6i.xlarge', 4, 16, 0.192], ['m6i.2xlarge', 8, 32, 0.384],
  ['m6i.4xlarge', 16, 64, 0.768], ['m6i.8xlarge', 32, 128, 1.536], ['m6i.16xlarge', 64, 256, 3.072],
  ['c6i.large', 2, 4, 0.085], ['c6i.xlarge', 4, 8, 0.17], ['c6i.2xlarge', 8, 16, 0.34],
  ['c6i.4xlarge', 16, 32, 0.68], ['c6i.8xlarge', 32, 64, 1.36],
  ['r6i.large', 2, 16, 0.126], ['r6i.xlarge', 4, 32, 0.252], ['r6i.2xlarge', 8, 64, 0.504], ['r6i.4xlarge', 16, 128, 1.008],
  ['p2.xlarge', 4, 61, 0.9, ['K80', 1, 12]],
  ['p3.2xlarge', 8, 61, 3.06, ['V100', 1, 16]], ['p3.8xlarge', 32, 244, 12.24, ['V100', 4, 16]],
  ['p3.16xlarge', 64, 488, 24.48, ['V100', 8, 16]], ['p3dn.24xlarge', 96, 768, 31.212, ['V100', 8, 32]],
  ['p4d.24xlarge', 96, 1152, 32.7726, ['A100', 8, 40]], ['p4de.24xlarge', 96, 1152, 40.9657, ['A100-80GB', 8, 80]],
  ['p5.48xlarge', 192, 2048, 98.32, ['H100', 8, 80]],
  ['g4dn.xlarge', 4, 16, 0.526, ['T4', 1, 16]], ['g4dn.2xlarge', 8, 32, 0.752, ['T4', 1, 16]],
  ['g4dn.4xlarge', 16, 64, 1.204, ['T4', 1, 16]], ['g4dn.12xlarge', 48, 192, 3.912, ['T4', 4, 16]],
  ['g4dn.metal', 96, 384, 7.824, ['T4', 8, 16]],
  ['g5.xlarge', 4, 16, 1.006, ['A10G', 1, 24]], ['g5.2xlarge', 8, 32, 1.212, ['A10G', 1, 24]],
  ['g5.4xlarge', 16, 64, 1.624, ['A10G', 1, 24]], ['g5.12xlarge', 48, 192, 5.672, ['A10G', 4, 24]],
  ['g5.48xlarge', 192, 768, 16.288, ['A10G', 8, 24]],
  ['g6.xlarge', 4, 16, 0.8048, ['L4', 1, 24]], ['g6.2xlarge', 8, 32, 0.9776, ['L4', 1, 24]],
  ['g6.12xlarge', 48, 192, 4.6016, ['L4', 4, 24]], ['g6.48xlarge', 192, 768, 13.3504, ['L4', 8, 24]],
];

export const AWS_SHIPPED: readonly InstanceType[] = ROWS.map(([name, vcpus, memoryGb, price, gpu]) => ({
  cloud: 'aws', name, vcpus, memoryGb, price, arch: 'x86_64', currentGeneration: !/^(p2|t2)\./.test(name),
  ...(gpu ? { gpus: { name: gpu[0], count: gpu[1], memoryGb: gpu[2] } } : {}),
}));

const BY_NAME = new Map(AWS_SHIPPED.map((t) => [t.name, t]));

/** The shipped on-demand price of a type, if it is in the table (the sweep's cost hint). */
export function awsShippedPrice(name: string | undefined): number | undefined {
  return name ? BY_NAME.get(name)?.price : undefined;
}
