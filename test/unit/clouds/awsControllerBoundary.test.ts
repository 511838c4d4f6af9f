// The AWS managed-jobs controller's policy against the ways its VM could widen its own reach
// through a role it writes (controllerPolicy.ts, jobBoundary.ts), evaluated by a small IAM
// evaluator (iamEval.ts): moto does not evaluate IAM, so only the documents can be checked here.
// Key semantics as documented for iam:PermissionsBoundary: on CreateRole and
// PutRolePermissionsBoundary it is the boundary the request sets, on PutRolePolicy the one the
// role already carries; absent when there is none.
import assert from 'node:assert/strict';
import { controllerPolicy } from '../../../src/core/clouds/aws/controllerPolicy';
import { boundaryArn, jobBoundaryPolicy } from '../../../src/core/clouds/aws/jobBoundary';
import { controllerBoundaryArn, controllerBoundaryPolicy } from '../../../src/core/clouds/aws/controllerBoundary';
import { bucketPolicy } from '../../../src/core/clouds/aws/bucketPolicy';
import type { BucketAccess } from '../../../src/core/clouds/provider';
import { evaluate, type IamRequest } from './iamEval';

const UID = '0f1e2d3c-0000-4000-8000-00000000c0de';
const ACCOUNT = '111122223333';
/** This controller's own boundary (controllerBoundary.ts). */
const OURS = controllerBoundaryArn(ACCOUNT, UID);
/** Another controller's, and the account's shared one (any bucket; roles made from the user's machine carry it). */
const B_UID = '0000aaaa-0000-4000-8000-000000000001';
const THEIRS = controllerBoundaryArn(ACCOUNT, B_UID);
const SHARED = boundaryArn(ACCOUNT);
const OTHER = `arn:aws:iam::${ACCOUNT}:policy/skydeck/wide-open`;
const JOB_ROLE = `arn:aws:iam::${ACCOUNT}:role/skydeck/skydeck-job-1`;
const OWN_ROLE = `arn:aws:iam::${ACCOUNT}:role/skydeck/controller/skydeck-${UID}`;
/** Another user's controller in the same account: unbounded, with its own controller policy. */
const OTHER_CONTROLLER = `arn:aws:iam::${ACCOUNT}:role/skydeck/controller/skydeck-${B_UID}`;
const OTHER_CONTROLLER_PROFILE = `arn:aws:iam::${ACCOUNT}:instance-profile/skydeck/controller/skydeck-${B_UID}`;
const doc = () => controllerPolicy(UID, OURS);
/** What some later, wider statement on the same role would add: the explicit denies must still hold. */
const WIDER = { Statement: [{ Effect: 'Allow', Action: 'iam:*', Resource: '*' }] };
const boundary = (b: string): Record<string, string> => ({ 'iam:PermissionsBoundary': b });
const decide = (req: IamRequest, extra = false) => evaluate(extra ? [doc(), WIDER] : [doc()], req);

describe('aws controller policy: roles it writes must carry the job boundary', () => {
  it('CreateRole: refused without a boundary or with another one, allowed with the job boundary', () => {
    assert.equal(decide({ action: 'iam:CreateRole', resource: JOB_ROLE }), 'explicit-deny');
    assert.equal(decide({ action: 'iam:CreateRole', resource: JOB_ROLE, context: boundary(OTHER) }), 'explicit-deny');
    assert.equal(decide({ action: 'iam:CreateRole', resource: JOB_ROLE, context: boundary(OURS) }), 'allow');
    // Even beside a wider Allow: the deny names every boundary but ours.
    assert.equal(decide({ action: 'iam:CreateRole', resource: JOB_ROLE, context: boundary(OTHER) }, true), 'explicit-deny');
  });

  it('PutRolePolicy: refused on a role without the job boundary, allowed on one with it, never on its own role', () => {
    assert.equal(decide({ action: 'iam:PutRolePolicy', resource: JOB_ROLE }), 'explicit-deny');
    assert.equal(decide({ action: 'iam:PutRolePolicy', resource: JOB_ROLE, context: boundary(OTHER) }), 'explicit-deny');
    assert.equal(decide({ action: 'iam:PutRolePolicy', resource: JOB_ROLE, context: boundary(OURS) }), 'allow');
    assert.equal(decide({ action: 'iam:PutRolePolicy', resource: OWN_ROLE, context: boundary(OURS) }), 'explicit-deny');
    // AttachRolePolicy is not used; a wider Allow still could not attach to a boundary-less role.
    assert.equal(decide({ action: 'iam:AttachRolePolicy', resource: JOB_ROLE }, true), 'explicit-deny');
  });

  it('the boundary cannot be removed or swapped: DeleteRolePermissionsBoundary denied, PutRolePermissionsBoundary only to the job boundary', () => {
    for (const extra of [false, true]) {
      assert.equal(decide({ action: 'iam:DeleteRolePermissionsBoundary', resource: JOB_ROLE, context: boundary(OURS) }, extra), 'explicit-deny');
      assert.equal(decide({ action: 'iam:PutRolePermissionsBoundary', resource: JOB_ROLE, context: boundary(OTHER) }, extra), 'explicit-deny');
    }
    // Setting ours (on a role made before boundaries) only narrows it, and is what the code does.
    assert.equal(decide({ action: 'iam:PutRolePermissionsBoundary', resource: JOB_ROLE, context: boundary(OURS) }), 'allow');
  });

  it('the boundary policy itself cannot be written: CreatePolicyVersion, SetDefaultPolicyVersion, DeletePolicy ... denied', () => {
    for (const action of ['iam:CreatePolicyVersion', 'iam:SetDefaultPolicyVersion', 'iam:DeletePolicy', 'iam:DeletePolicyVersion', 'iam:CreatePolicy']) {
      assert.equal(decide({ action, resource: OURS }, true), 'explicit-deny', action);
    }
    assert.equal(decide({ action: 'iam:GetPolicy', resource: OURS }), 'allow', 'the VM checks it exists');
  });

  it('no controller identity, its own or another\'s, may be passed to an instance, put in a profile, written or deleted', () => {
    const toEc2 = { 'iam:PassedToService': 'ec2.amazonaws.com' };
    for (const extra of [false, true]) {
      for (const role of [OWN_ROLE, OTHER_CONTROLLER]) {
        assert.equal(decide({ action: 'iam:PassRole', resource: role, context: toEc2 }, extra), 'explicit-deny', `PassRole ${role}`);
        for (const action of ['iam:PutRolePolicy', 'iam:DeleteRole', 'iam:DeleteRolePolicy', 'iam:TagRole', 'iam:UpdateAssumeRolePolicy']) {
          assert.equal(decide({ action, resource: role, context: boundary(OURS) }, extra), 'explicit-deny', `${action} ${role}`);
        }
      }
      for (const action of ['iam:AddRoleToInstanceProfile', 'iam:RemoveRoleFromInstanceProfile', 'iam:DeleteInstanceProfile']) {
        assert.equal(decide({ action, resource: OTHER_CONTROLLER_PROFILE }, extra), 'explicit-deny', action);
      }
    }
  });

  it('what it still may do: pass job roles to EC2, delete them, read them', () => {
    assert.equal(decide({ action: 'iam:PassRole', resource: JOB_ROLE, context: { 'iam:PassedToService': 'ec2.amazonaws.com' } }), 'allow');
    assert.equal(decide({ action: 'iam:PassRole', resource: JOB_ROLE, context: { 'iam:PassedToService': 'lambda.amazonaws.com' } }), 'implicit-deny');
    assert.equal(decide({ action: 'iam:DeleteRole', resource: JOB_ROLE }), 'allow');
    assert.equal(decide({ action: 'iam:GetRole', resource: JOB_ROLE }), 'allow');
  });
});

describe('aws controller boundary: a controller\'s job roles reach only the buckets granted to it', () => {
  const ADMIN = JSON.stringify({ Statement: [{ Effect: 'Allow', Action: '*', Resource: '*' }] });
  const GRANTED: BucketAccess[] = [{ store: 's3', bucket: 'a-data', prefix: 'runs' }, { store: 's3', bucket: 'a-out', manage: true }];
  /** A job role controller A writes with any policy: what its own policy and A's boundary both allow. */
  const jobRole = (req: IamRequest, boundaryDoc = controllerBoundaryPolicy(GRANTED)) =>
    evaluate([ADMIN], req) === 'allow' && evaluate([boundaryDoc], req) === 'allow';

  it('a job role of controller A cannot get, put or list objects of a bucket not granted to A', () => {
    for (const [action, resource] of [['s3:GetObject', 'arn:aws:s3:::b-secret/key'], ['s3:PutObject', 'arn:aws:s3:::b-secret/key'], ['s3:ListBucket', 'arn:aws:s3:::b-secret'],
      ['s3:GetObject', 'arn:aws:s3:::a-data/other/key'], ['s3:DeleteBucket', 'arn:aws:s3:::a-out'], ['ec2:RunInstances', '*'], ['iam:PutRolePolicy', '*']] as const) {
      assert.equal(jobRole({ action, resource }), false, `${action} ${resource}`);
    }
  });

  it('the buckets granted to A work: every action a cluster\'s bucket policy gives on them is inside the boundary', () => {
    const policy = bucketPolicy(GRANTED.map(({ manage: _m, ...a }) => a));
    const stmts = (JSON.parse(policy) as { Statement: { Action: string[]; Resource: string | string[]; Condition?: unknown }[] }).Statement;
    const asked = stmts.flatMap((s) => s.Action.flatMap((action) => ([] as string[]).concat(s.Resource).map((resource) => ({ action, resource }))));
    for (const req of asked) {
      // A listing of the prefix the mount names (the ListBucket statement's condition).
      const context = req.action === 's3:ListBucket' && req.resource.endsWith(':a-data') ? { 's3:prefix': 'runs/x' } : undefined;
      assert.equal(jobRole({ ...req, ...(context ? { context } : {}) }), true, `${req.action} ${req.resource}`);
    }
    assert.equal(jobRole({ action: 's3:GetObject', resource: 'arn:aws:s3:::a-out/any/key' }), true);
  });

  it('with no bucket granted yet it allows nothing; a name that is not a bucket\'s is refused, not written', () => {
    assert.equal(jobRole({ action: 's3:GetObject', resource: 'arn:aws:s3:::a-data/runs/k' }, controllerBoundaryPolicy([])), false);
    for (const bucket of ['*', 'a-data/*', 'A', 'x']) {
      assert.throws(() => controllerBoundaryPolicy([{ store: 's3', bucket }]), /is not an S3 bucket name/, bucket);
    }
  });

  it('controller A cannot create, write or re-bound a role with B\'s boundary or the shared one', () => {
    for (const extra of [false, true]) {
      for (const other of [THEIRS, SHARED]) {
        for (const action of ['iam:CreateRole', 'iam:PutRolePolicy', 'iam:PutRolePermissionsBoundary']) {
          assert.equal(decide({ action, resource: JOB_ROLE, context: boundary(other) }, extra), 'explicit-deny', `${action} ${other}`);
        }
      }
    }
  });

  it('controller A cannot write any Skydeck boundary: its own (the user\'s machine widens it), B\'s, the shared one', () => {
    for (const arn of [OURS, THEIRS, SHARED]) {
      for (const action of ['iam:CreatePolicyVersion', 'iam:SetDefaultPolicyVersion', 'iam:DeletePolicy', 'iam:DeletePolicyVersion', 'iam:TagPolicy']) {
        assert.equal(decide({ action, resource: arn }, true), 'explicit-deny', `${action} ${arn}`);
      }
    }
  });
});

describe('aws shared job-role boundary (roles made from the user\'s machine): what a role under it can do at most', () => {
  const ADMIN = { Statement: [{ Effect: 'Allow', Action: '*', Resource: '*' }] };
  /** A role's effective permission: its own policy and its boundary must both allow (and neither deny). */
  const effective = (own: object | string, req: IamRequest) => evaluate([own as string], req) === 'allow' && evaluate([jobBoundaryPolicy()], req) === 'allow';

  it('a role written with an administrator policy reaches S3 objects and nothing of EC2 or IAM', () => {
    for (const action of ['ec2:RunInstances', 'ec2:TerminateInstances', 'iam:CreateRole', 'iam:PutRolePolicy', 'iam:PassRole', 'sts:AssumeRole', 's3:DeleteBucket', 's3:PutBucketPolicy']) {
      assert.equal(effective(ADMIN, { action, resource: '*' }), false, action);
    }
    assert.equal(effective(ADMIN, { action: 's3:GetObject', resource: 'arn:aws:s3:::any-bucket/key' }), true, 'any bucket: only roles the user\'s machine writes carry it');
  });

  it('holds every action a cluster\'s bucket policy gives, so bounded roles lose nothing they use', () => {
    const policy = bucketPolicy([{ store: 's3', bucket: 'data-bkt', prefix: 'runs' }, { store: 's3', bucket: 'other' }]);
    const stmts = (JSON.parse(policy) as { Statement: { Action: string[]; Resource: string | string[] }[] }).Statement;
    const asked = stmts.flatMap((s) => s.Action.flatMap((action) => ([] as string[]).concat(s.Resource).map((resource) => ({ action, resource }))));
    assert.ok(asked.length > 5);
    for (const req of asked) assert.equal(evaluate([jobBoundaryPolicy()], req), 'allow', `${req.action} ${req.resource}`);
  });
});

describe('iamEval (the evaluator the tests above rely on)', () => {
  const p = (statements: object[]) => ({ Statement: statements });
  it('an explicit Deny wins over an Allow; no matching Allow is an implicit deny', () => {
    const both = p([{ Effect: 'Allow', Action: 's3:*', Resource: '*' }, { Effect: 'Deny', Action: 's3:DeleteObject', Resource: '*' }]);
    assert.equal(evaluate([both], { action: 's3:DeleteObject', resource: 'x' }), 'explicit-deny');
    assert.equal(evaluate([both], { action: 's3:GetObject', resource: 'x' }), 'allow');
    assert.equal(evaluate([both], { action: 'ec2:RunInstances', resource: 'x' }), 'implicit-deny');
  });
  it('an Allow needs its action, resource and every condition matched; a negated operator matches an absent key', () => {
    const cond = p([{ Effect: 'Allow', Action: 'iam:CreateRole', Resource: 'arn:aws:iam::*:role/skydeck/*', Condition: { StringEquals: { 'iam:PermissionsBoundary': 'b' } } }]);
    assert.equal(evaluate([cond], { action: 'iam:CreateRole', resource: 'arn:aws:iam::1:role/skydeck/r', context: { 'iam:permissionsboundary': 'b' } }), 'allow');
    assert.equal(evaluate([cond], { action: 'iam:CreateRole', resource: 'arn:aws:iam::1:role/other/r', context: { 'iam:PermissionsBoundary': 'b' } }), 'implicit-deny');
    assert.equal(evaluate([cond], { action: 'iam:CreateRole', resource: 'arn:aws:iam::1:role/skydeck/r' }), 'implicit-deny');
    const not = p([{ Effect: 'Deny', Action: '*', Resource: '*', Condition: { StringNotEquals: { k: 'v' } } }]);
    assert.equal(evaluate([not], { action: 'a:b', resource: 'x' }), 'explicit-deny');
    assert.equal(evaluate([not], { action: 'a:b', resource: 'x', context: { k: 'v' } }), 'implicit-deny');
  });
  it('fails loudly on what it does not know', () => {
    assert.throws(() => evaluate([p([{ Effect: 'Allow', Action: 'x:y', Resource: '*', Condition: { NumericLessThan: { k: '1' } } }])], { action: 'a:b', resource: 'x' }), /NumericLessThan/);
    assert.throws(() => evaluate([p([{ Effect: 'Allow', Action: '*', Resource: '*', Condition: { 'ForAnyValue:StringEquals': { k: '1' } } }])], { action: 'a:b', resource: 'x' }), /ForAnyValue/);
    assert.throws(() => evaluate([p([{ Effect: 'Allow', NotAction: 'x:y', Resource: '*' }])], { action: 'a:b', resource: 'x' }), /NotAction/);
  });
});
