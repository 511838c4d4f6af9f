// The AWS bucket role's pieces that need no cloud: its name, its policy, and which RunInstances
// refusal means "the new instance profile is not visible yet".
import assert from 'node:assert/strict';
import { bucketPolicy, profileNameOf, s3Access } from '../../../src/core/clouds/aws/bucketPolicy';
import { isProfileNotVisible } from '../../../src/core/clouds/aws/runRetry';
import { toProviderError } from '../../../src/core/clouds/aws/errors';

describe('aws: bucket role policy and names', () => {
  it('grants a whole bucket without a prefix condition, and only S3 buckets, once each', () => {
    const access = s3Access([{ store: 's3', bucket: 'b' }, { store: 'gcs', bucket: 'g' }, { store: 's3', bucket: 'b', prefix: '' }, { store: 'r2', bucket: 'r' }]);
    assert.deepEqual(access, [{ store: 's3', bucket: 'b' }]);
    assert.deepEqual(JSON.parse(bucketPolicy(access)).Statement, [
      { Effect: 'Allow', Action: ['s3:GetBucketLocation'], Resource: ['arn:aws:s3:::b'] },
      { Effect: 'Allow', Action: ['s3:ListBucket'], Resource: 'arn:aws:s3:::b' },
      { Effect: 'Allow', Action: ['s3:GetObject', 's3:PutObject', 's3:DeleteObject', 's3:AbortMultipartUpload', 's3:ListMultipartUploadParts'], Resource: ['arn:aws:s3:::b/*'] },
    ]);
  });

  it('a prefix with slashes around it is trimmed in both the list condition and the object ARNs', () => {
    const st = JSON.parse(bucketPolicy([{ store: 's3', bucket: 'b', prefix: '/a/b/' }])).Statement;
    assert.deepEqual(st[1].Condition, { StringLike: { 's3:prefix': ['a/b', 'a/b/*'] } });
    assert.deepEqual(st[2].Resource, ['arn:aws:s3:::b/a/b', 'arn:aws:s3:::b/a/b/*']);
  });

  it('names are IAM-safe and at most 64 characters whatever the uid holds', () => {
    assert.equal(profileNameOf('0f8e2c1a-1111-4222-8333-444455556666'), 'skydeck-0f8e2c1a-1111-4222-8333-444455556666');
    const odd = profileNameOf(`a b/*?${'x'.repeat(100)}`);
    assert.match(odd, /^[\w+=,.@-]{1,64}$/);
  });

  it('only EC2\'s refusal naming the instance profile counts as "not visible yet"', () => {
    const err = (name: string, message: string) => Object.assign(new Error(message), { name });
    assert.equal(isProfileNotVisible(err('InvalidParameterValue', 'Value (skydeck-x) for parameter iamInstanceProfile.name is invalid. Invalid IAM Instance Profile name')), true);
    assert.equal(isProfileNotVisible(err('InvalidParameterValue', 'Invalid value for InstanceType')), false);
    assert.equal(isProfileNotVisible(err('UnauthorizedOperation', 'not authorized to perform iam:PassRole on iamInstanceProfile')), false);
  });

  it('an IAM permission refusal names the IAM action in its hint', () => {
    const e = toProviderError(Object.assign(new Error('denied'), { name: 'AccessDenied' }), 'iam:CreateRole');
    assert.equal(e.kind, 'auth');
    assert.match(e.hint ?? '', /permission for iam:CreateRole;/);
  });
});
