import { DescribeImagesCommand, type EC2Client, type Image } from '@aws-sdk/client-ec2';
import { ProviderError } from '../provider';
import { awsErrorCode, ec2Call } from './errors';
import { UBUNTU_2204, type AwsProviderOptions } from './options';

export interface ResolvedImage {
  id: string;
  /** Where the root volume attaches: disk_size must be set on exactly this device. */
  rootDevice: string;
}

/** `image_id` as the task wrote it: one id, or a map region → id (SkyPilot's form). */
export function imageIdFor(imageId: string | Record<string, string> | undefined, region: string): string | undefined {
  if (!imageId) return undefined;
  return typeof imageId === 'string' ? imageId : imageId[region];
}

/**
 * The task's image, or the newest Ubuntu 22.04 image Canonical publishes in the region for the
 * architecture. Looked up rather than tabled: AMI ids differ per region and change monthly.
 */
export async function resolveImage(
  ec2: EC2Client, region: string, wanted: string | undefined, arch: 'x86_64' | 'arm64', opts: AwsProviderOptions,
): Promise<ResolvedImage> {
  if (wanted) {
    const img = await ec2Call('DescribeImages', async () => {
      try {
        return (await ec2.send(new DescribeImagesCommand({ ImageIds: [wanted] }))).Images?.[0];
      } catch (e) {
        if (/^InvalidAMIID/.test(awsErrorCode(e))) return undefined;
        throw e;
      }
    });
    if (!img) throw new ProviderError('config', `image ${wanted} does not exist in ${region}`, 'image_id must be an AMI of the region launched in; use a map {region: ami} for several regions');
    return toResolved(img);
  }
  const q = opts.image ?? UBUNTU_2204;
  const name = q.namePattern(arch === 'arm64' ? 'arm64' : 'amd64');
  const images = await ec2Call('DescribeImages', async () => (await ec2.send(new DescribeImagesCommand({
    Owners: [q.owner], Filters: [{ Name: 'name', Values: [name] }, { Name: 'state', Values: ['available'] }],
  }))).Images ?? []);
  const newest = images.sort((a, b) => (b.CreationDate ?? '').localeCompare(a.CreationDate ?? ''))[0];
  if (!newest) throw new ProviderError('config', `no Ubuntu 22.04 image (${name}) found in ${region}`, 'set image_id in the task\'s resources');
  return toResolved(newest);
}

function toResolved(img: Image): ResolvedImage {
  return { id: img.ImageId!, rootDevice: img.RootDeviceName ?? '/dev/sda1' };
}
