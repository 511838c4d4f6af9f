import { DescribeAvailabilityZonesCommand, DescribeSecurityGroupsCommand } from '@aws-sdk/client-ec2';
import type { ProviderErrorKind } from '../provider';
import { Ec2Clients } from './clients';
import { ec2Call, toProviderError } from './errors';
import type { AwsProviderOptions } from './options';

export type AwsCheck =
  | { ok: true; region: string; zones: string[]; account?: string }
  | { ok: false; kind: ProviderErrorKind; reason: string; fix: string };

/**
 * "Is AWS usable?" with no STS client installed: DescribeAvailabilityZones proves the region
 * is set, credentials resolve and sign, and EC2 answers. The account id is read, best effort,
 * from the owner of a security group (no extra permission beyond what launching needs).
 */
export async function checkAws(opts: AwsProviderOptions = {}): Promise<AwsCheck> {
  const clients = new Ec2Clients({ ...opts, maxAttempts: opts.maxAttempts ?? 2 });
  try {
    const region = await clients.defaultRegion();
    const ec2 = clients.get(region);
    const az = await ec2Call('DescribeAvailabilityZones', () => ec2.send(new DescribeAvailabilityZonesCommand({
      Filters: [{ Name: 'state', Values: ['available'] }],
    })));
    const zones = (az.AvailabilityZones ?? []).map((z) => z.ZoneName!).filter(Boolean).sort();
    let account: string | undefined;
    try {
      const sg = await ec2.send(new DescribeSecurityGroupsCommand({ MaxResults: 5 }));
      account = sg.SecurityGroups?.[0]?.OwnerId;
    } catch {
      // No ec2:DescribeSecurityGroups: launching will say so; the check itself passed.
    }
    return { ok: true, region, zones, ...(account ? { account } : {}) };
  } catch (e) {
    const pe = toProviderError(e);
    return { ok: false, kind: pe.kind, reason: pe.message, fix: pe.hint ?? 'check the network connection to AWS and retry' };
  } finally {
    clients.destroy();
  }
}
