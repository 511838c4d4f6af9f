// Widening a running cluster's bucket role: a task launched or exec'd onto an existing cluster
// may name buckets the role was not written for, and its nodes would be refused them.
import { GetRolePolicyCommand, PutRolePolicyCommand, type IAMClient, type Role } from '@aws-sdk/client-iam';
import { ProviderError, TAG_UID, type BucketAccess } from '../provider';
import type { BucketGrant } from '../clusterIdentity';
import { awsErrorCode, ec2Call } from './errors';
import { POLICY_NAME, accessOfPolicy, boundedBucketPolicy, profileNameOf, s3Access } from './bucketPolicy';
import { getRole } from './bucketRole';
import { controllerPolicy } from './controllerPolicy';
import { boundRole } from './jobBoundary';
import { controllerBoundaryPolicy, ensureControllerBoundary, requireControllerBoundary } from './controllerBoundary';

const key = (a: BucketAccess) => `${a.bucket}/${a.prefix ?? ''}${a.manage ? ' manage' : ''}`;

/** What the role's inline policy allows now ([] when it has none). */
async function grantedAccess(iam: IAMClient, name: string): Promise<BucketAccess[]> {
  return ec2Call('iam:GetRolePolicy', async () => {
    try {
      const r = await iam.send(new GetRolePolicyCommand({ RoleName: name, PolicyName: POLICY_NAME }));
      // IAM returns the document URL-encoded (RFC 3986), as the API reference says.
      return accessOfPolicy(decodeURIComponent(r.PolicyDocument ?? ''));
    } catch (e) {
      if (awsErrorCode(e) === 'NoSuchEntity' || awsErrorCode(e) === 'NoSuchEntityException') return [];
      throw e;
    }
  });
}

/**
 * Makes the cluster's role allow `access` too: the union of what it allows and the new S3
 * buckets, written back only when something is new (a read-modify-write; Skydeck is the
 * only writer of this policy). A cluster launched without S3 buckets has no role and its
 * nodes no instance profile: that is refused with the fix (relaunch), because giving running
 * instances an identity would change what every process on them can reach mid-life, and their
 * credentials would appear on the instance metadata only after a delay the mount would race.
 * A managed-jobs controller's job-role boundary (controllerBoundary.ts, `boundaryArn`) is set
 * to the same union in the same step, even when the role allowed it all already (a grant cut
 * short between the two writes is completed by the next); a controller without one is refused.
 */
export async function grantBucketsToRole(
  iam: IAMClient, uid: string, access: BucketAccess[], controller: boolean, boundaryArn: string, boundary: () => Promise<string>,
): Promise<BucketGrant> {
  const plan = await planRoleGrant(iam, uid, access, controller, boundaryArn);
  // The boundary first: a job role the controller writes for these buckets works once both are written.
  const bounded = controller && plan.union ? await ensureControllerBoundary(iam, boundaryArn, uid, {}, plan.union) : false;
  if (!plan.PolicyDocument) return { identity: plan.identity, changed: bounded };
  const { PolicyDocument } = plan;
  // A cluster's role (not a controller's own) carries the job-role boundary before it is
  // written: one made before boundaries existed gets it here (jobBoundary.ts).
  if (!controller && plan.role) await boundRole(iam, plan.role, await boundary());
  await ec2Call('iam:PutRolePolicy', () => iam.send(new PutRolePolicyCommand({ RoleName: plan.name, PolicyName: POLICY_NAME, PolicyDocument })));
  return { identity: plan.identity, changed: true };
}

/**
 * The role's new bucket policy for `access` (undefined when it allows all of it already), or
 * the ProviderError the grant would end with; reads only. Used before the row records the
 * buckets (checkBuckets) and by the grant itself.
 */
export async function planRoleGrant(
  iam: IAMClient, uid: string, access: BucketAccess[], controller: boolean, boundaryArn: string,
): Promise<{ name: string; identity: string; role?: Role; PolicyDocument?: string; union?: BucketAccess[] }> {
  const name = profileNameOf(uid);
  const identity = `IAM role ${name}`;
  const wanted = s3Access(access);
  if (!wanted.length) return { name, identity };
  const role = await getRole(iam, name);
  if (!role) {
    throw new ProviderError('config', `the cluster was launched without S3 buckets, so its nodes have no instance profile to read ${wanted.map((a) => `s3://${a.bucket}`).join(', ')} with`,
      'Skydeck gives AWS nodes their bucket identity when it creates them: down the cluster and launch this task again, or launch it on a new cluster');
  }
  if (!(role.Tags ?? []).some((t) => t.Key === TAG_UID && t.Value === uid)) {
    throw new ProviderError('config', `IAM role ${name} exists but is not this Skydeck cluster's`, 'delete or rename that role, then relaunch the cluster');
  }
  const current = await grantedAccess(iam, name);
  // An entry that manages its bucket covers the same entry without.
  const have = new Set(current.flatMap((a) => a.manage ? [key(a), key({ ...a, manage: undefined })] : [key(a)]));
  const added = wanted.filter((a) => !have.has(key(a)));
  const union = s3Access([...current, ...added]);
  // A controller's role also holds its own policy, which counts against the same quota.
  const PolicyDocument = added.length ? boundedBucketPolicy(union, controller ? controllerPolicy(uid, boundaryArn).length : 0) : undefined;
  if (controller) {
    await requireControllerBoundary(iam, boundaryArn);
    controllerBoundaryPolicy(union); // refused here when too large or a name is not a bucket's
  }
  return { name, identity, ...(PolicyDocument ? { role, PolicyDocument } : {}), ...(controller ? { union } : {}) };
}
