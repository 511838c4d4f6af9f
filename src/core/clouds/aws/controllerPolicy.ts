// What a managed-jobs controller VM may do with its own identity (its instance profile's role,
// the same per-cluster role bucket mounts use: bucketRole.ts): launch, stop, start and
// terminate job clusters the way the AWS provider does, and no more. Every call the provider
// makes is listed here; anything it does not call is not allowed.
// - Describe* calls cannot be limited to resources in IAM: allowed as they are (read-only).
// - Instances and volumes it creates must carry Skydeck's uid tag, and only instances carrying
//   it may be stopped, started, terminated or tagged later: the account's other machines are out
//   of reach. Tags may be set at creation by RunInstances / CreateSecurityGroup / ImportKeyPair.
// - Security groups: created with the tag; ingress opened and groups deleted only when tagged.
// - IAM: only roles and instance profiles under Skydeck's path (/skydeck/), which job clusters
//   with S3 mounts get, and PassRole of those to EC2 alone. Controllers' own roles and profiles
//   live on a path of their own (/skydeck/controller/), denied every IAM action: the controller
//   cannot widen, pass or delete its own access, nor another controller's; its own instance
//   is denied stop/terminate by API (it stops itself by an OS shutdown, which needs none).
// - Every role it creates, and every role whose policy it writes, must carry ITS OWN job-role
//   permissions boundary (controllerBoundary.ts: `skydeck-job-boundary-<its uid>`, S3 object
//   actions on exactly the buckets granted to it), by iam:PermissionsBoundary: on CreateRole and
//   PutRolePermissionsBoundary that key is the boundary the request sets, on PutRolePolicy the
//   one the role already has (IAM User Guide, "Permissions boundaries for IAM entities"; Service
//   Authorization Reference, IAM condition keys). So a role it writes with any policy and passes
//   to an instance it launches can still do no more than the S3 objects of its own buckets: no
//   EC2, no IAM, no other bucket. Creating or writing a role without it (the key is then absent)
//   or with another one (the account's shared boundary, another controller's), attaching a
//   managed policy to such a role, removing a boundary, and any write to a managed policy under
//   /skydeck/ (its boundary, other controllers', the shared one) are denied explicitly, so no
//   other Allow (a wider statement added later) reopens them. Roles under /skydeck/ without its
//   boundary are thus out of its reach for writes; it may give them its boundary, which bounds
//   them by its buckets (bucketRole.ts does so before writing one: a job cluster role made from
//   this machine, under the shared boundary). Its boundary is made, and widened at each bucket
//   grant, by this machine (managed/remote/controllerBuckets.ts), before this policy names it.
// No S3 here: which buckets jobs will name is not known when the VM is made; each submit that
// names some adds exactly those to the role's bucket policy and to its boundary, from this
// machine (managed/remote/controllerBuckets.ts, aws/bucketGrant.ts).
// Left wide on purpose: any region (job clusters go where their task says). Known limits that
// remain: a role it makes may trust any principal (CreateRole cannot be conditioned on the
// trust policy), which then gets that same reach of its buckets; it may delete other Skydeck
// job roles, or re-bound them by its own boundary and write them (their clusters then reach its
// buckets instead of theirs: harm, but no widening of what it reaches). The VM's software is
// trusted with that much.
import { TAG_UID } from '../provider';
import { CONTROLLER_IAM_PATH, IAM_PATH } from './bucketPolicy';

export const CONTROLLER_POLICY_NAME = 'skydeck-jobs-controller';

const DESCRIBE = [
  'ec2:DescribeAvailabilityZones', 'ec2:DescribeImages', 'ec2:DescribeInstances', 'ec2:DescribeInstanceTypes',
  'ec2:DescribeKeyPairs', 'ec2:DescribeRegions', 'ec2:DescribeSecurityGroups', 'ec2:DescribeSpotPriceHistory',
];
const INSTANCE_LIFE = ['ec2:StopInstances', 'ec2:StartInstances', 'ec2:TerminateInstances'];
const ROLE_ACTIONS = ['iam:GetRole', 'iam:GetRolePolicy', 'iam:ListRolePolicies', 'iam:DeleteRolePolicy', 'iam:DeleteRole', 'iam:TagRole'];
/** What widens a role: allowed only for roles that carry (or are given) the boundary. */
const BOUNDED_ROLE_ACTIONS = ['iam:CreateRole', 'iam:PutRolePolicy', 'iam:PutRolePermissionsBoundary'];
/** Every write to a managed policy: none may touch a Skydeck boundary. */
const POLICY_WRITES = ['iam:CreatePolicy', 'iam:CreatePolicyVersion', 'iam:DeletePolicy', 'iam:DeletePolicyVersion', 'iam:SetDefaultPolicyVersion', 'iam:TagPolicy', 'iam:UntagPolicy'];
const PROFILE_ACTIONS = [
  'iam:CreateInstanceProfile', 'iam:GetInstanceProfile', 'iam:AddRoleToInstanceProfile', 'iam:RemoveRoleFromInstanceProfile',
  'iam:DeleteInstanceProfile', 'iam:TagInstanceProfile',
];

const tagged = { Null: { [`aws:ResourceTag/${TAG_UID}`]: 'false' } };

/** The inline policy of the controller cluster `uid`'s role (JSON, no white space); `boundary`: ITS job-role boundary's ARN (controllerBoundary.ts). */
export function controllerPolicy(uid: string, boundary: string): string {
  const jobRoles = `arn:aws:iam::*:role${IAM_PATH}*`;
  const statements = [
    { Sid: 'Describe', Effect: 'Allow', Action: DESCRIBE, Resource: '*' },
    {
      Sid: 'RunTaggedInstances', Effect: 'Allow', Action: 'ec2:RunInstances',
      Resource: ['arn:aws:ec2:*:*:instance/*', 'arn:aws:ec2:*:*:volume/*'],
      Condition: { Null: { [`aws:RequestTag/${TAG_UID}`]: 'false' } },
    },
    {
      Sid: 'RunWithParts', Effect: 'Allow', Action: 'ec2:RunInstances',
      Resource: ['image', 'subnet', 'network-interface', 'security-group', 'key-pair', 'spot-instances-request'].map((t) => `arn:aws:ec2:*:*:${t}/*`),
    },
    { Sid: 'TagAtCreation', Effect: 'Allow', Action: 'ec2:CreateTags', Resource: '*', Condition: { StringEquals: { 'ec2:CreateAction': ['RunInstances', 'CreateSecurityGroup', 'ImportKeyPair'] } } },
    { Sid: 'TagOwnInstances', Effect: 'Allow', Action: 'ec2:CreateTags', Resource: 'arn:aws:ec2:*:*:instance/*', Condition: tagged },
    { Sid: 'InstanceLifecycle', Effect: 'Allow', Action: INSTANCE_LIFE, Resource: 'arn:aws:ec2:*:*:instance/*', Condition: tagged },
    { Sid: 'NotItself', Effect: 'Deny', Action: INSTANCE_LIFE, Resource: 'arn:aws:ec2:*:*:instance/*', Condition: { StringEquals: { [`aws:ResourceTag/${TAG_UID}`]: uid } } },
    {
      Sid: 'CreateGroups', Effect: 'Allow', Action: 'ec2:CreateSecurityGroup', Resource: ['arn:aws:ec2:*:*:security-group/*', 'arn:aws:ec2:*:*:vpc/*'],
    },
    { Sid: 'OwnGroups', Effect: 'Allow', Action: ['ec2:AuthorizeSecurityGroupIngress', 'ec2:DeleteSecurityGroup'], Resource: 'arn:aws:ec2:*:*:security-group/*', Condition: tagged },
    { Sid: 'ImportKey', Effect: 'Allow', Action: 'ec2:ImportKeyPair', Resource: 'arn:aws:ec2:*:*:key-pair/*' },
    { Sid: 'JobRoles', Effect: 'Allow', Action: ROLE_ACTIONS, Resource: jobRoles },
    { Sid: 'BoundedJobRoles', Effect: 'Allow', Action: BOUNDED_ROLE_ACTIONS, Resource: jobRoles, Condition: { StringEquals: { 'iam:PermissionsBoundary': boundary } } },
    { Sid: 'SeeBoundary', Effect: 'Allow', Action: 'iam:GetPolicy', Resource: boundary },
    { Sid: 'JobProfiles', Effect: 'Allow', Action: PROFILE_ACTIONS, Resource: `arn:aws:iam::*:instance-profile${IAM_PATH}*` },
    { Sid: 'ListJobRoles', Effect: 'Allow', Action: 'iam:ListRoles', Resource: '*' },
    { Sid: 'PassJobRoles', Effect: 'Allow', Action: 'iam:PassRole', Resource: jobRoles, Condition: { StringEquals: { 'iam:PassedToService': 'ec2.amazonaws.com' } } },
    { Sid: 'KeepBoundaries', Effect: 'Deny', Action: 'iam:DeleteRolePermissionsBoundary', Resource: '*' },
    // With no boundary in the request (or on the role) the key is absent, and StringNotEquals matches: denied too.
    { Sid: 'OnlyBoundedRoles', Effect: 'Deny', Action: [...BOUNDED_ROLE_ACTIONS, 'iam:AttachRolePolicy'], Resource: '*', Condition: { StringNotEquals: { 'iam:PermissionsBoundary': boundary } } },
    // Its own boundary (widened only by this machine), other controllers' and the shared one.
    { Sid: 'BoundariesUnchanged', Effect: 'Deny', Action: POLICY_WRITES, Resource: `arn:aws:iam::*:policy${IAM_PATH}*` },
    // Its own and every other controller's identity: not passed (to an instance or a profile),
    // written or deleted. Job roles and profiles are never on this path (bucketRole.ts).
    { Sid: 'NoControllerIdentity', Effect: 'Deny', Action: 'iam:*', Resource: [`arn:aws:iam::*:role${CONTROLLER_IAM_PATH}*`, `arn:aws:iam::*:instance-profile${CONTROLLER_IAM_PATH}*`] },
  ];
  return JSON.stringify({ Version: '2012-10-17', Statement: statements });
}
