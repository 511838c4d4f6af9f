import { paginateDescribeInstanceTypes, type EC2Client, type InstanceTypeInfo } from '@aws-sdk/client-ec2';
import { AWS_SHIPPED, cachedCatalog, type InstanceType } from '../../catalog';
import { ec2Call } from './errors';

export function toCatalogType(t: InstanceTypeInfo): InstanceType | undefined {
  if (!t.InstanceType || !t.VCpuInfo?.DefaultVCpus || !t.MemoryInfo?.SizeInMiB) return undefined;
  const archs = t.ProcessorInfo?.SupportedArchitectures ?? [];
  const out: InstanceType = {
    cloud: 'aws', name: t.InstanceType, vcpus: t.VCpuInfo.DefaultVCpus,
    memoryGb: Math.round((t.MemoryInfo.SizeInMiB / 1024) * 100) / 100,
    arch: archs.includes('x86_64') || !archs.includes('arm64') ? 'x86_64' : 'arm64',
    currentGeneration: t.CurrentGeneration !== false,
  };
  const g = t.GpuInfo?.Gpus?.[0];
  if (g?.Name && g.Count) {
    out.gpus = { name: g.Name, count: g.Count, ...(g.MemoryInfo?.SizeInMiB ? { memoryGb: Math.round(g.MemoryInfo.SizeInMiB / 1024) } : {}) };
  }
  return out;
}

/** Every instance type offered in the client's region, from DescribeInstanceTypes (paged). */
export async function fetchAwsTypes(ec2: EC2Client): Promise<InstanceType[]> {
  return ec2Call('DescribeInstanceTypes', async () => {
    const out: InstanceType[] = [];
    for await (const page of paginateDescribeInstanceTypes({ client: ec2, pageSize: 100 }, {})) {
      for (const t of page.InstanceTypes ?? []) {
        const c = toCatalogType(t);
        if (c) out.push(c);
      }
    }
    return out;
  });
}

/** The region's catalog, cached per region (catalog/cache.ts). */
export function awsCatalog(ec2: EC2Client, region: string, dir: string, log?: (m: string) => void): Promise<InstanceType[]> {
  return cachedCatalog({ cloud: 'aws', region, dir, fetch: () => fetchAwsTypes(ec2), shipped: AWS_SHIPPED, log });
}
