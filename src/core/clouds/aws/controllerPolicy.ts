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
//   with S3 mounts get, and PassRole of those to EC2 alone. Its own role and profile are denied
//   every IAM action, so the controller cannot widen or delete its own access; its own instance
//   is denied stop/terminate by API (it stops itself by an OS shutdown, which needs none).
// No S3 here: which buckets jobs will name is not known when the VM is made; each submit that
// names some adds exactly those to the role's bucket policy, from this machine
// (managed/remote/controllerBuckets.ts).
// Left wide on purpose: any region (job clusters go where their task says). Known limit, which
// lets the VM widen its own reach: a role under /skydeck/ is written by the controller with a
// policy of its choosing and passed to an instance it launches, so that instance (and through
// it the controller) may do whatever that policy says. A permissions boundary required on every
// role it creates (iam:PermissionsBoundary on CreateRole/PutRolePolicy) would bound that; it is
// not built yet. Until then the VM's software is trusted as this machine's CLI is.
import { TAG_UID } from '../provider';
import { IAM_PATH, profileNameOf } from './bucketPolicy';

export const CONTROLLER_POLICY_NAME = 'skydeck-jobs-controller';

const DESCRIBE = [
  'ec2:DescribeAvailabilityZones', 'ec2:DescribeImages', 'ec2:DescribeInstances', 'ec2:DescribeInstanceTypes',
  'ec2:DescribeKeyPairs', 'ec2:DescribeRegions', 'ec2:DescribeSecurityGroups', 'ec2:DescribeSpotPriceHistory',
];
const INSTANCE_LIFE = ['ec2:StopInstances', 'ec2:StartInstances', 'ec2:TerminateInstances'];
const ROLE_ACTIONS = ['iam:CreateRole', 'iam:GetRole', 'iam:PutRolePolicy', 'iam:GetRolePolicy', 'iam:ListRolePolicies', 'iam:DeleteRolePolicy', 'iam:DeleteRole', 'iam:TagRole'];
const PROFILE_ACTIONS = [
  'iam:CreateInstanceProfile', 'iam:GetInstanceProfile', 'iam:AddRoleToInstanceProfile', 'iam:RemoveRoleFromInstanceProfile',
  'iam:DeleteInstanceProfile', 'iam:TagInstanceProfile',
];

const tagged = { Null: { [`aws:ResourceTag/${TAG_UID}`]: 'false' } };

/** The inline policy of the controller cluster `uid`'s role (JSON, no white space). */
export function controllerPolicy(uid: string): string {
  const own = profileNameOf(uid);
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
    { Sid: 'JobRoles', Effect: 'Allow', Action: ROLE_ACTIONS, Resource: `arn:aws:iam::*:role${IAM_PATH}*` },
    { Sid: 'JobProfiles', Effect: 'Allow', Action: PROFILE_ACTIONS, Resource: `arn:aws:iam::*:instance-profile${IAM_PATH}*` },
    { Sid: 'ListJobRoles', Effect: 'Allow', Action: 'iam:ListRoles', Resource: '*' },
    { Sid: 'PassJobRoles', Effect: 'Allow', Action: 'iam:PassRole', Resource: `arn:aws:iam::*:role${IAM_PATH}*`, Condition: { StringEquals: { 'iam:PassedToService': 'ec2.amazonaws.com' } } },
    { Sid: 'NotOwnIdentity', Effect: 'Deny', Action: 'iam:*', Resource: [`arn:aws:iam::*:role${IAM_PATH}${own}`, `arn:aws:iam::*:instance-profile${IAM_PATH}${own}`] },
  ];
  return JSON.stringify({ Version: '2012-10-17', Statement: statements });
}
