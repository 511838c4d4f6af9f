// The account's shared permissions boundary `skydeck-job-boundary` (a customer-managed policy
// under /skydeck/) that every cluster role this machine makes carries. A role's effective
// permissions are its own policies intersected with its boundary, so whatever policy is written
// on such a role it can never do more than read and write S3 objects. It allows those on every
// bucket (buckets are named per task, after it is made), which is safe only because no
// managed-jobs controller may write a role that carries it: a controller's job roles carry the
// controller's own boundary instead, naming only its granted buckets (controllerBoundary.ts;
// the shared ensurePolicy below makes both), and its policy allows roles with no other
// (controllerPolicy.ts).
// It is made and kept up to date by this machine (the user's credentials) before any role is
// made with it. It is shared by every Skydeck role of the account, so a down never deletes it:
// it grants nothing by itself (a boundary only limits). Bucket making and deleting
// (MANAGE_ACTIONS) is in no boundary: only a controller's own role is given those, and that
// role carries no boundary.
import {
  CreatePolicyCommand, CreatePolicyVersionCommand, DeletePolicyVersionCommand, GetPolicyCommand, GetPolicyVersionCommand,
  ListPolicyVersionsCommand, PutRolePermissionsBoundaryCommand, type IAMClient, type Role,
} from '@aws-sdk/client-iam';
import { isDeepStrictEqual } from 'node:util';
import { ProviderError } from '../provider';
import { awsErrorCode, ec2Call } from './errors';
import { IAM_PATH, NODE_BUCKET_ACTIONS } from './bucketPolicy';

export const BOUNDARY_NAME = 'skydeck-job-boundary';

/** Set in the environment of the CLI on a managed-jobs controller VM (AwsProvider.controllerNodeEnv): it uses its controller's boundary, never writes one. */
export const CONTROLLER_NODE_ENV = 'SKYDECK_AWS_CONTROLLER_NODE';

export const boundaryArn = (account: string) => `arn:aws:iam::${account}:policy${IAM_PATH}${BOUNDARY_NAME}`;

/** The boundary's document: what any node role of a cluster may ever be given (bucketPolicy.ts), on any bucket. */
export function jobBoundaryPolicy(): string {
  return JSON.stringify({ Version: '2012-10-17', Statement: [{ Sid: 'NodeBuckets', Effect: 'Allow', Action: NODE_BUCKET_ACTIONS, Resource: '*' }] });
}

const gone = (e: unknown) => awsErrorCode(e) === 'NoSuchEntity' || awsErrorCode(e) === 'NoSuchEntityException';

/** The default version's document of a managed policy, or undefined when there is no such policy. */
export async function defaultDocument(iam: IAMClient, arn: string): Promise<unknown | undefined> {
  let version: string | undefined;
  try {
    version = (await iam.send(new GetPolicyCommand({ PolicyArn: arn }))).Policy?.DefaultVersionId;
  } catch (e) {
    if (gone(e)) return undefined;
    throw e;
  }
  const v = await iam.send(new GetPolicyVersionCommand({ PolicyArn: arn, VersionId: version }));
  // IAM returns the document URL-encoded (RFC 3986).
  return JSON.parse(decodeURIComponent(v.PolicyVersion?.Document ?? '{}'));
}

/**
 * Makes the boundary policy of `account` exist with exactly jobBoundaryPolicy() as its default
 * version. Idempotent: unchanged, it writes nothing. Returns its ARN.
 */
export async function ensureJobBoundary(iam: IAMClient, account: string): Promise<string> {
  const arn = boundaryArn(account);
  await ensurePolicy(iam, {
    arn, name: BOUNDARY_NAME, doc: jobBoundaryPolicy(),
    description: 'Skydeck: the most any cluster role it makes from a user\'s machine may do (S3 objects)',
  });
  return arn;
}

/**
 * Makes the managed policy `want.arn` exist with exactly `want.doc` as its default version
 * (created with `tags`, or given a new default version when its document differs; IAM keeps at
 * most five, so the oldest other one goes first). True when it wrote something.
 */
export async function ensurePolicy(
  iam: IAMClient, want: { arn: string; name: string; doc: string; description: string; tags?: { Key: string; Value: string }[] },
): Promise<boolean> {
  const { arn, doc } = want;
  const parsed = JSON.parse(doc) as unknown;
  const have = await ec2Call('iam:GetPolicyVersion', () => defaultDocument(iam, arn));
  if (have === undefined) {
    const made = await ec2Call('iam:CreatePolicy', async () => {
      try {
        await iam.send(new CreatePolicyCommand({
          PolicyName: want.name, Path: IAM_PATH, PolicyDocument: doc, Description: want.description, ...(want.tags ? { Tags: want.tags } : {}),
        }));
        return true;
      } catch (e) {
        // Another launch made it meanwhile: its document is checked below like any existing one.
        if (/^EntityAlreadyExists/.test(awsErrorCode(e))) return false;
        throw e;
      }
    });
    if (made) return true;
  } else if (isDeepStrictEqual(have, parsed)) {
    return false;
  }
  const again = await ec2Call('iam:GetPolicyVersion', () => defaultDocument(iam, arn));
  if (isDeepStrictEqual(again, parsed)) return false;
  const versions = (await ec2Call('iam:ListPolicyVersions', () => iam.send(new ListPolicyVersionsCommand({ PolicyArn: arn })))).Versions ?? [];
  if (versions.length >= 5) {
    const oldest = versions.filter((v) => !v.IsDefaultVersion).sort((a, b) => (a.CreateDate?.getTime() ?? 0) - (b.CreateDate?.getTime() ?? 0))[0];
    if (oldest?.VersionId) await ec2Call('iam:DeletePolicyVersion', () => iam.send(new DeletePolicyVersionCommand({ PolicyArn: arn, VersionId: oldest.VersionId })));
  }
  await ec2Call('iam:CreatePolicyVersion', () => iam.send(new CreatePolicyVersionCommand({ PolicyArn: arn, PolicyDocument: doc, SetAsDefault: true })));
  return true;
}

/**
 * On a controller VM: the boundary's ARN (its controller's own: controllerBoundary.ts), once IAM shows the policy exists (the VM may not make
 * it; a role created naming a missing boundary would fail with a less clear error).
 */
export async function existingJobBoundary(iam: IAMClient, arn: string): Promise<string> {
  const found = await ec2Call('iam:GetPolicy', async () => {
    try {
      return !!(await iam.send(new GetPolicyCommand({ PolicyArn: arn }))).Policy;
    } catch (e) {
      if (gone(e)) return false;
      throw e;
    }
  });
  if (!found) {
    throw new ProviderError('config', `the permissions boundary ${arn} that job-cluster roles must carry does not exist, and a managed-jobs controller may not make it`,
      'launch the controller again from your machine (it makes the boundary)');
  }
  return arn;
}

/**
 * Puts the boundary `arn` on an existing role that lacks it (made by a Skydeck before boundaries)
 * or carries another one, before its policy is written: a controller may write policies only on
 * roles with its own boundary, and setting that one is the only boundary change it may make.
 */
export async function boundRole(iam: IAMClient, role: Role, arn: string): Promise<void> {
  if (role.PermissionsBoundary?.PermissionsBoundaryArn === arn) return;
  await ec2Call('iam:PutRolePermissionsBoundary', () => iam.send(new PutRolePermissionsBoundaryCommand({ RoleName: role.RoleName!, PermissionsBoundary: arn })));
}
