// Down's delete of a managed-jobs controller's boundary (controllerBoundary.ts) against IAM's
// answers moto does not give: moto ignores ListEntitiesForPolicy's PermissionsBoundary filter
// and never refuses DeletePolicy with DeleteConflict. A stub IAM client answers per command.
import assert from 'node:assert/strict';
import type { IAMClient } from '@aws-sdk/client-iam';
import { TAG_UID } from '../../../src/core/clouds/provider';
import { controllerBoundaryArn, deleteControllerBoundary } from '../../../src/core/clouds/aws/controllerBoundary';

const UID = '0f1e2d3c-0000-4000-8000-00000000c0de';
const ARN = controllerBoundaryArn('111122223333', UID);

/** An IAM client whose answers are given per command name; records the commands sent. */
function stubIam(answers: Record<string, (input: Record<string, unknown>) => unknown>): { iam: IAMClient; sent: string[] } {
  const sent: string[] = [];
  const iam = {
    send: async (cmd: { constructor: { name: string }; input: Record<string, unknown> }) => {
      const name = cmd.constructor.name.replace(/Command$/, '');
      sent.push(name);
      const answer = answers[name];
      if (!answer) throw new Error(`unexpected ${name}`);
      return answer(cmd.input);
    },
  } as unknown as IAMClient;
  return { iam, sent };
}
const awsError = (name: string) => Object.assign(new Error(name), { name });
const tagged = (uid: string) => () => ({ Tags: [{ Key: TAG_UID, Value: uid }] });

describe('aws controller boundary: down deletes it only once no role carries it', () => {
  it('a role still carrying it (IAM lists it as the role\'s boundary): left, naming the role, nothing deleted', async () => {
    const { iam, sent } = stubIam({
      ListPolicyTags: tagged(UID),
      ListEntitiesForPolicy: (input) => {
        assert.equal(input.PolicyUsageFilter, 'PermissionsBoundary');
        return { PolicyRoles: [{ RoleName: 'skydeck-job-1' }, { RoleName: 'bad name/..' }] };
      },
    });
    const why = await deleteControllerBoundary(iam, ARN, UID);
    assert.match(why ?? '', /still the boundary of IAM role\(s\) skydeck-job-1, \(a role of an invalid name\).*down them first/);
    assert.ok(!sent.some((c) => c.startsWith('Delete')), sent.join(' '));
  });

  it('IAM refusing the delete (DeleteConflict: a role got it meanwhile): left, with why', async () => {
    const { iam } = stubIam({
      ListPolicyTags: tagged(UID), ListEntitiesForPolicy: () => ({ PolicyRoles: [] }), ListPolicyVersions: () => ({ Versions: [{ VersionId: 'v1', IsDefaultVersion: true }] }),
      DeletePolicy: () => { throw awsError('DeleteConflictException'); },
    });
    assert.match(await deleteControllerBoundary(iam, ARN, UID) ?? '', /DeleteConflict/);
  });

  it('not tagged as this uid\'s: left alone; no roles: older versions, then the policy, deleted', async () => {
    const other = stubIam({ ListPolicyTags: tagged('someone-else') });
    assert.match(await deleteControllerBoundary(other.iam, ARN, UID) ?? '', /not tagged as this cluster's/);
    assert.deepEqual(other.sent, ['ListPolicyTags']);
    const ok = stubIam({
      ListPolicyTags: tagged(UID), ListEntitiesForPolicy: () => ({ PolicyRoles: [] }),
      ListPolicyVersions: () => ({ Versions: [{ VersionId: 'v2', IsDefaultVersion: true }, { VersionId: 'v1', IsDefaultVersion: false }] }),
      DeletePolicyVersion: (input) => assert.equal(input.VersionId, 'v1'), DeletePolicy: () => ({}),
    });
    assert.equal(await deleteControllerBoundary(ok.iam, ARN, UID), undefined);
    assert.deepEqual(ok.sent, ['ListPolicyTags', 'ListEntitiesForPolicy', 'ListPolicyVersions', 'DeletePolicyVersion', 'DeletePolicy']);
  });

  it('names from state are checked before they go into an ARN', () => {
    assert.throws(() => controllerBoundaryArn('1111*', UID), /is not an AWS account id/);
    assert.match(controllerBoundaryArn('111122223333', 'a/b*c'), /:policy\/skydeck\/skydeck-job-boundary-a-b-c$/);
  });
});
