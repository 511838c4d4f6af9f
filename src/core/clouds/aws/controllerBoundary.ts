// The permissions boundary of the job-cluster roles ONE managed-jobs controller writes:
// `skydeck-job-boundary-<controller uid>` under /skydeck/. Its S3 statements name exactly the
// buckets (and prefixes) granted to that controller, the list ops/bucketGrant.ts keeps for the
// controller's own role, and this machine rewrites both in the same grant (bucketGrant.ts); the
// controller may only create or write roles that carry THIS boundary and may write no managed
// policy (controllerPolicy.ts). So a role it writes with any policy reaches no bucket the user
// did not give that controller, and never another controller's buckets. (The account's shared
// `skydeck-job-boundary`, jobBoundary.ts, allows every bucket: only roles this machine writes
// carry it, and no controller may write a role that does.)
// A controller launched by a Skydeck before this has none: its grants are refused with the fix
// (relaunch), which makes it. Down of the controller deletes it once IAM no longer lists it as
// any role's boundary (with proof); the sweep lists one no row owns (TaggedListing.identities).
import {
  DeletePolicyCommand, DeletePolicyVersionCommand, GetPolicyCommand, ListEntitiesForPolicyCommand, ListPoliciesCommand, ListPolicyTagsCommand,
  ListPolicyVersionsCommand, type IAMClient, type Policy,
} from '@aws-sdk/client-iam';
import { ProviderError, TAG_UID, type BucketAccess, type TaggedIdentity } from '../provider';
import { boundedMap } from '../boundedMap';
import { awsErrorCode, ec2Call } from './errors';
import { IAM_PATH, bucketPolicy, profileNameOf } from './bucketPolicy';
import { BOUNDARY_NAME, defaultDocument, ensurePolicy } from './jobBoundary';

/** Set on a controller VM's CLI (AwsProvider.controllerNodeEnv): whose boundary its job roles carry. */
export const CONTROLLER_UID_ENV = 'SKYDECK_AWS_CONTROLLER_UID';
/** What the user is told it is (down's proof, the sweep). */
export const BOUNDARY_KIND = 'IAM permissions boundary';
/** IAM's limit on a managed policy's document (white space not counted; ours has none). */
export const MANAGED_POLICY_MAX = 6_144;

const PREFIX = `${BOUNDARY_NAME}-`;

/** The boundary's name: the same uid → name mapping as the controller's role (bucketPolicy.ts). */
export function controllerBoundaryName(uid: string): string {
  return `${PREFIX}${profileNameOf(uid).slice('skydeck-'.length)}`;
}

/** Its ARN; the account comes from STS, still checked, since the ARN goes into a policy the VM gets. */
export function controllerBoundaryArn(account: string, uid: string): string {
  if (!/^\d{12}$/.test(account)) throw new ProviderError('config', `"${account}" is not an AWS account id`);
  return `arn:aws:iam::${account}:policy${IAM_PATH}${controllerBoundaryName(uid)}`;
}

/** A bucket name S3 accepts (3-63 of a-z 0-9 . -): anything else (a "*", a "/") would widen a Resource ARN. */
const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

/**
 * The boundary's document for the buckets granted to the controller: the object-level statements
 * a cluster's bucket policy gives (bucketPolicy.ts), never a bucket's making or ending (MANAGE is
 * the controller's own, not its job roles'). With no bucket granted yet it allows nothing.
 */
export function controllerBoundaryPolicy(access: BucketAccess[]): string {
  const s3 = access.filter((a) => a.store === 's3').map(({ manage: _m, account: _a, ...rest }) => rest);
  const bad = s3.find((a) => !BUCKET.test(a.bucket));
  if (bad) throw new ProviderError('config', `"${bad.bucket}" is not an S3 bucket name`, 'name buckets by their S3 names (lower-case letters, digits, dots and dashes)');
  if (!s3.length) return JSON.stringify({ Version: '2012-10-17', Statement: [{ Sid: 'NoBucketGranted', Effect: 'Deny', Action: '*', Resource: '*' }] });
  const doc = bucketPolicy(s3);
  if (doc.length > MANAGED_POLICY_MAX) {
    throw new ProviderError('config', `the ${s3.length} S3 bucket(s)/prefix(es) granted to the managed-jobs controller need a permissions boundary of ${doc.length} characters, more than the ${MANAGED_POLICY_MAX.toLocaleString('en-US')} AWS allows a managed policy`,
      'mount fewer buckets or prefixes in managed jobs (one prefix higher up covers several below it), or relaunch the controller to start from none');
  }
  return doc;
}

/** Makes the boundary exist with exactly the document for `access`, tagged as the controller's. True when it wrote. */
export function ensureControllerBoundary(iam: IAMClient, arn: string, uid: string, tags: Record<string, string>, access: BucketAccess[]): Promise<boolean> {
  return ensurePolicy(iam, {
    arn, name: arn.slice(arn.lastIndexOf('/') + 1), doc: controllerBoundaryPolicy(access),
    description: 'Skydeck: the most a job-cluster role of one managed-jobs controller may do (S3 objects of the buckets granted to it)',
    tags: Object.entries({ ...tags, [TAG_UID]: uid }).map(([Key, Value]) => ({ Key, Value })),
  });
}

/**
 * Refuses a controller without its boundary (launched by an older Skydeck, or the policy was
 * deleted): its policy lets it write roles under the shared boundary (every bucket), or none.
 */
export async function requireControllerBoundary(iam: IAMClient, arn: string): Promise<void> {
  if (await ec2Call('iam:GetPolicyVersion', () => defaultDocument(iam, arn)) !== undefined) return;
  throw new ProviderError('config', `the managed-jobs controller has no permissions boundary ${arn} of its own: it was launched by an older Skydeck, whose job-cluster roles could reach any S3 bucket of the account, so no bucket is granted to it`,
    'down the controller once its jobs are done (skydeck down <controller>) and submit again: the controller is launched anew with a boundary naming only the buckets its jobs mount');
}

const gone = (e: unknown) => awsErrorCode(e) === 'NoSuchEntity' || awsErrorCode(e) === 'NoSuchEntityException';

/** The policy's tags, or undefined when there is no such policy. */
async function tagsOf(iam: IAMClient, arn: string): Promise<Record<string, string> | undefined> {
  return ec2Call('iam:ListPolicyTags', async () => {
    try {
      const t = (await iam.send(new ListPolicyTagsCommand({ PolicyArn: arn }))).Tags ?? [];
      return Object.fromEntries(t.map((x) => [x.Key ?? '', x.Value ?? '']));
    } catch (e) {
      if (gone(e)) return undefined;
      throw e;
    }
  });
}

/** Whether the boundary exists now, by GetPolicy (NoSuchEntity is down's proof; ownership is checked by the delete). */
export async function boundaryPresent(iam: IAMClient, arn: string): Promise<boolean> {
  return ec2Call('iam:GetPolicy', async () => {
    try {
      return !!(await iam.send(new GetPolicyCommand({ PolicyArn: arn }))).Policy;
    } catch (e) {
      if (gone(e)) return false;
      throw e;
    }
  });
}

/**
 * Deletes the controller `uid`'s boundary: only when tagged as its, and only once no role carries
 * it (IAM would refuse with DeleteConflict; asked first, to say which). Non-default versions go
 * first, as IAM requires. Returns why it was left, or undefined (deleted, or there was none).
 */
export async function deleteControllerBoundary(iam: IAMClient, arn: string, uid: string): Promise<string | undefined> {
  const tags = await tagsOf(iam, arn);
  if (!tags) return undefined;
  if (tags[TAG_UID] !== uid) return 'it is not tagged as this cluster\'s, so Skydeck leaves it alone';
  const users = await ec2Call('iam:ListEntitiesForPolicy', () => iam.send(new ListEntitiesForPolicyCommand({ PolicyArn: arn, PolicyUsageFilter: 'PermissionsBoundary' })));
  const roles = (users.PolicyRoles ?? []).map((r) => r.RoleName ?? '').map((n) => (/^[\w+=,.@-]{1,64}$/.test(n) ? n : '(a role of an invalid name)'));
  if (roles.length) return `it is still the boundary of IAM role(s) ${roles.join(', ')} (job clusters of the controller): down them first`;
  const versions = (await ec2Call('iam:ListPolicyVersions', () => iam.send(new ListPolicyVersionsCommand({ PolicyArn: arn })))).Versions ?? [];
  for (const v of versions.filter((x) => !x.IsDefaultVersion)) {
    await ec2Call('iam:DeletePolicyVersion', () => iam.send(new DeletePolicyVersionCommand({ PolicyArn: arn, VersionId: v.VersionId })));
  }
  return ec2Call('iam:DeletePolicy', async () => {
    try {
      await iam.send(new DeletePolicyCommand({ PolicyArn: arn }));
      return undefined;
    } catch (e) {
      if (gone(e)) return undefined;
      if (awsErrorCode(e) === 'DeleteConflict' || awsErrorCode(e) === 'DeleteConflictException') return 'IAM says a role still carries it (DeleteConflict): down the controller\'s job clusters first';
      throw e;
    }
  });
}

/**
 * Every controller boundary of the account (local policies under /skydeck/ named for the uid
 * their tag names; a policy of another name is never listed, so never deleted by the sweep).
 */
export async function listControllerBoundaries(iam: IAMClient): Promise<TaggedIdentity[]> {
  const policies: Policy[] = [];
  let Marker: string | undefined;
  do {
    const page = await ec2Call('iam:ListPolicies', () => iam.send(new ListPoliciesCommand({ Scope: 'Local', PathPrefix: IAM_PATH, Marker })));
    policies.push(...(page.Policies ?? []));
    Marker = page.IsTruncated ? page.Marker : undefined;
  } while (Marker);
  const ours = policies.filter((p) => p.PolicyName?.startsWith(PREFIX) && p.Arn);
  const tagged = await boundedMap(ours, 4, async (p) => ({ p, tags: await tagsOf(iam, p.Arn!) }));
  return tagged.flatMap(({ p, tags }) => {
    const uid = tags?.[TAG_UID];
    return tags && uid && p.PolicyName === controllerBoundaryName(uid) && p.Path === IAM_PATH ? [{ kind: BOUNDARY_KIND, name: p.PolicyName, tags }] : [];
  });
}
