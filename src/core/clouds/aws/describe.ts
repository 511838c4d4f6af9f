import { paginateDescribeInstances, type EC2Client, type Filter, type Instance } from '@aws-sdk/client-ec2';
import { ec2Call } from './errors';

/**
 * Every instance matching the filters, all pages. An error is thrown (as a ProviderError),
 * never answered as an empty list (leak invariant 3).
 */
export async function describeInstances(ec2: EC2Client, filters: Filter[]): Promise<Instance[]> {
  return ec2Call('DescribeInstances', async () => {
    const out: Instance[] = [];
    for await (const page of paginateDescribeInstances({ client: ec2, pageSize: 500 }, { Filters: filters })) {
      for (const r of page.Reservations ?? []) {
        for (const [index, i] of (r.Instances ?? []).entries()) out.push({ ...i, AmiLaunchIndex: i.AmiLaunchIndex ?? index });
      }
    }
    return out;
  });
}
