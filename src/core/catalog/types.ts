/** One instance type as the catalog knows it; prices are USD per hour when known. */
export interface InstanceType {
  cloud: string;
  name: string;
  vcpus: number;
  memoryGb: number;
  /** GPU model and count per instance; memoryGb is per GPU. */
  gpus?: { name: string; count: number; memoryGb?: number };
  arch?: 'x86_64' | 'arm64';
  /** Previous-generation types are only picked when nothing current fits. */
  currentGeneration?: boolean;
  price?: number;
  spotPrice?: number;
  /** Resolved when named (instance_type) but never picked for a cpus/memory/accelerator request. */
  namedOnly?: boolean;
}

/** A cached listing of one cloud region's types, with the time it was fetched. */
export interface CatalogFile {
  cloud: string;
  region: string;
  /** Epoch ms. */
  fetchedAt: number;
  types: InstanceType[];
}
