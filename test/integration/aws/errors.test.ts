// Error classification without the emulator (runs everywhere): the kinds the provision loop
// branches on, for SDK errors as they arrive (name = EC2 code, $metadata.httpStatusCode).
import * as assert from 'node:assert/strict';
import { classifyAwsError, toProviderError } from '../../../src/core/clouds/aws/errors';
import { pickHead, statusOf } from '../../../src/core/clouds/aws/status';

const sdkError = (name: string, status?: number, message = `${name} happened`) =>
  Object.assign(new Error(message), { name, ...(status ? { $metadata: { httpStatusCode: status } } : {}) });

describe('aws error mapping (no emulator needed)', () => {
  it('classifies capacity, quota, auth, config and transient errors', () => {
    const cases: [Error, string][] = [
      [sdkError('InsufficientInstanceCapacity', 500), 'capacity'],
      [sdkError('Unsupported', 400), 'capacity'],
      [sdkError('InvalidParameterValue', 400, 'Invalid availability zone: [us-west-1a]'), 'capacity'],
      [sdkError('VcpuLimitExceeded', 400), 'quota'],
      [sdkError('MaxSpotInstanceCountExceeded', 400), 'quota'],
      [sdkError('InstanceLimitExceeded', 400), 'quota'],
      [sdkError('AuthFailure', 401), 'auth'],
      [sdkError('UnauthorizedOperation', 403), 'auth'],
      [sdkError('CredentialsProviderError', undefined, 'Could not load credentials from any providers'), 'auth'],
      [sdkError('ExpiredToken', 400), 'auth'],
      [sdkError('InvalidAMIID.NotFound', 400), 'config'],
      [sdkError('InvalidParameterCombination', 400), 'config'],
      [sdkError('RequestLimitExceeded', 503), 'transient'],
      [sdkError('Throttling', 400), 'transient'],
      [sdkError('InternalError', 500), 'transient'],
      [sdkError('SomethingNew', 502), 'transient'],
      [Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' }), 'transient'],
      [sdkError('TimeoutError', undefined, 'socket hang up'), 'transient'],
    ];
    for (const [e, kind] of cases) assert.equal(classifyAwsError(e), kind, `${e.name}: ${e.message}`);
  });

  it('says what to fix, naming the call, without echoing anything secret', () => {
    const denied = toProviderError(sdkError('UnauthorizedOperation', 403, 'You are not authorized to perform this operation.'), 'RunInstances');
    assert.match(denied.message, /^RunInstances: UnauthorizedOperation/);
    assert.match(denied.hint ?? '', /ec2:RunInstances/);
    const creds = toProviderError(sdkError('CredentialsProviderError', undefined, 'Could not load credentials from any providers'));
    assert.match(creds.hint ?? '', /aws configure|aws sso login/);
    const quota = toProviderError(sdkError('VcpuLimitExceeded', 400));
    assert.match(quota.hint ?? '', /quota/i);
  });

  it('maps EC2 instance states to Skydeck statuses and picks the head', () => {
    assert.deepEqual(['pending', 'running', 'stopping', 'stopped', 'shutting-down', 'terminated'].map(statusOf),
      ['pending', 'running', 'stopping', 'stopped', 'terminating', 'terminated']);
    const at = (id: string, launchedAt: number, tags: Record<string, string> = {}) =>
      ({ info: { id, status: 'running' as const, launchedAt, tags }, index: 0 });
    assert.equal(pickHead([at('i-b', 2), at('i-a', 1)])?.id, 'i-a', 'the oldest without a head tag');
    assert.equal(pickHead([at('i-b', 2), at('i-a', 1), at('i-c', 3, { 'skydeck-head': 'true' })])?.id, 'i-c');
    assert.equal(pickHead([]), undefined);
  });
});
