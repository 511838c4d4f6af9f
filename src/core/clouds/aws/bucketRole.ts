import {
  AddRoleToInstanceProfileCommand, CreateInstanceProfileCommand, CreateRoleCommand, DeleteInstanceProfileCommand,
  DeleteRoleCommand, DeleteRolePolicyCommand, GetInstanceProfileCommand, GetRoleCommand, ListRolePoliciesCommand,
  PutRolePolicyCommand, RemoveRoleFromInstanceProfileCommand, type IAMClient, type InstanceProfile, type Role, type Tag,
} from '@aws-sdk/client-iam';
import { ProviderError, TAG_UID, type BucketAccess } from '../provider';
import { awsErrorCode, ec2Call } from './errors';
import { CONTROLLER_IAM_PATH, EC2_TRUST, IAM_PATH, POLICY_NAME, boundedBucketPolicy, profileNameOf, s3Access } from './bucketPolicy';
import { CONTROLLER_POLICY_NAME, controllerPolicy } from './controllerPolicy';
import { boundRole } from './jobBoundary';
import { BOUNDARY_KIND, boundaryPresent as boundaryPresentFor, deleteControllerBoundary } from './controllerBoundary';

/** What the user is told each one is (and what the sweep lists roles as). */
export const ROLE_KIND = 'IAM role';
export const PROFILE_KIND = 'instance profile';

const ours = (tags: Tag[] | undefined, uid: string) => (tags ?? []).some((t) => t.Key === TAG_UID && t.Value === uid);

/** The answer of a Get*, or undefined when IAM says there is no such entity. */
async function lookup<T>(action: string, fn: () => Promise<T>): Promise<T | undefined> {
  return ec2Call(action, async () => {
    try {
      return await fn();
    } catch (e) {
      if (awsErrorCode(e) === 'NoSuchEntity' || awsErrorCode(e) === 'NoSuchEntityException') return undefined;
      throw e;
    }
  });
}

/** The role, or undefined when there is none of that name. */
export const getRole = (iam: IAMClient, name: string) => lookup('iam:GetRole', async () => (await iam.send(new GetRoleCommand({ RoleName: name }))).Role);
export const getProfile = (iam: IAMClient, name: string) =>
  lookup('iam:GetInstanceProfile', async () => (await iam.send(new GetInstanceProfileCommand({ InstanceProfileName: name }))).InstanceProfile);

/**
 * The cluster's role (trusted by EC2, allowed only the task's S3 buckets, and for a managed-jobs
 * controller cluster what launching job clusters takes: controllerPolicy.ts) and its instance
 * profile, created or brought up to date. Undefined when the request mounts no S3 bucket and
 * is no controller: such nodes get no identity at all. A role of the same name not tagged with
 * this uid is not ours and is refused, never changed.
 * `boundary` gives a job-role permissions boundary's ARN, made sure of first: for a cluster's
 * role the one it carries (here the account's shared one, jobBoundary.ts; on a controller VM the
 * controller's own, controllerBoundary.ts), for a controller the one its policy names, its own.
 * Every role but a controller's own carries one, whoever makes it: a controller may write only
 * roles with its own, so an existing role (one made before boundaries, or here and relaunched
 * by a controller) is given `boundary` before its policy is written. A controller's own role
 * carries none (its own policy is wider than any boundary).
 */
export async function ensureBucketProfile(
  iam: IAMClient, uid: string, tags: Record<string, string>, access: BucketAccess[] | undefined, controller: boolean, boundary: () => Promise<string>,
): Promise<string | undefined> {
  const s3 = s3Access(access);
  if (!s3.length && !controller) return undefined;
  const boundaryArn = await boundary();
  const ownPolicy = controller ? controllerPolicy(uid, boundaryArn) : undefined;
  // Too large (with the controller's own policy: IAM's quota is for both): refused before the role exists.
  const PolicyDocument = s3.length ? boundedBucketPolicy(s3, ownPolicy?.length) : undefined;
  const name = profileNameOf(uid);
  const Tags = Object.entries(tags).map(([Key, Value]) => ({ Key, Value }));
  const path = controller ? CONTROLLER_IAM_PATH : IAM_PATH;
  const role = await getRole(iam, name);
  if (role && (!ours(role.Tags, uid) || role.Path !== path)) throw new ProviderError('config', `IAM role ${name} exists but is not this Skydeck cluster's${role.Path !== path ? ` (its path is ${role.Path}, not ${path})` : ''}`, 'delete or rename that role, or launch under another cluster name');
  if (!role) {
    await ec2Call('iam:CreateRole', () => iam.send(new CreateRoleCommand({
      RoleName: name, Path: path, AssumeRolePolicyDocument: EC2_TRUST, Tags,
      Description: `Skydeck cluster ${tags['skydeck-cluster'] ?? uid}: ${controller ? 'managed-jobs controller' : 'its task\'s buckets'}`,
      ...(controller ? {} : { PermissionsBoundary: boundaryArn }),
    })));
  } else if (!controller) {
    await boundRole(iam, role, boundaryArn);
  }
  // Written every launch: a relaunch after a stop may mount other buckets.
  if (PolicyDocument) await ec2Call('iam:PutRolePolicy', () => iam.send(new PutRolePolicyCommand({ RoleName: name, PolicyName: POLICY_NAME, PolicyDocument })));
  if (ownPolicy) {
    await ec2Call('iam:PutRolePolicy', () => iam.send(new PutRolePolicyCommand({ RoleName: name, PolicyName: CONTROLLER_POLICY_NAME, PolicyDocument: ownPolicy })));
  }
  let profile = await getProfile(iam, name);
  if (profile && (!ours(profile.Tags, uid) || profile.Path !== path)) throw new ProviderError('config', `IAM instance profile ${name} exists but is not this Skydeck cluster's`, 'delete that instance profile, or launch under another cluster name');
  if (!profile) {
    profile = (await ec2Call('iam:CreateInstanceProfile', () => iam.send(new CreateInstanceProfileCommand({ InstanceProfileName: name, Path: path, Tags })))).InstanceProfile;
  }
  if (!(profile?.Roles ?? []).some((r) => r.RoleName === name)) {
    await ec2Call('iam:AddRoleToInstanceProfile', () => iam.send(new AddRoleToInstanceProfileCommand({ InstanceProfileName: name, RoleName: name })));
  }
  return name;
}

/**
 * Deletes the cluster's instance profile and role (policies first, as IAM requires), then, for
 * a managed-jobs controller, its job-role boundary `boundary` (controllerBoundary.ts: kept while
 * a role still carries it). Only ones tagged with this uid: anything else of that name is left
 * alone and reported. Returns false when something was left; `deleted` gets the kinds it deleted.
 */
export async function deleteBucketProfile(
  iam: IAMClient, uid: string, log: (m: string) => void, deleted: string[] = [], boundary?: string,
): Promise<boolean> {
  const name = profileNameOf(uid);
  let clean = true;
  const profile: InstanceProfile | undefined = await getProfile(iam, name);
  if (profile && ours(profile.Tags, uid)) {
    for (const r of profile.Roles ?? []) {
      await ignoreGone('iam:RemoveRoleFromInstanceProfile', () => iam.send(new RemoveRoleFromInstanceProfileCommand({ InstanceProfileName: name, RoleName: r.RoleName! })));
    }
    await ignoreGone('iam:DeleteInstanceProfile', () => iam.send(new DeleteInstanceProfileCommand({ InstanceProfileName: name })));
    deleted.push(PROFILE_KIND);
  } else if (profile) {
    log(`aws: instance profile ${name} is not tagged as cluster ${uid}'s; left alone`);
    clean = false;
  }
  const role: Role | undefined = await getRole(iam, name);
  if (role && ours(role.Tags, uid)) {
    const policies = await ec2Call('iam:ListRolePolicies', () => iam.send(new ListRolePoliciesCommand({ RoleName: name })));
    for (const p of policies.PolicyNames ?? []) await ignoreGone('iam:DeleteRolePolicy', () => iam.send(new DeleteRolePolicyCommand({ RoleName: name, PolicyName: p })));
    await ignoreGone('iam:DeleteRole', () => iam.send(new DeleteRoleCommand({ RoleName: name })));
    deleted.push(ROLE_KIND);
  } else if (role) {
    log(`aws: IAM role ${name} is not tagged as cluster ${uid}'s; left alone`);
    clean = false;
  }
  if (boundary) {
    const had = await boundaryPresentFor(iam, boundary);
    const left = await deleteControllerBoundary(iam, boundary, uid);
    if (left) {
      log(`aws: ${BOUNDARY_KIND} ${boundary} left: ${left}`);
      clean = false;
    } else if (had) deleted.push(BOUNDARY_KIND);
  }
  return clean;
}

async function ignoreGone(action: string, fn: () => Promise<unknown>): Promise<void> {
  await lookup(action, fn);
}
