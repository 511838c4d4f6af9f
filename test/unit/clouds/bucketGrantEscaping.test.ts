// Issue 16, hostile input: a bucket prefix is the user's (any object key is legal), and it
// reaches IAM documents whose own syntax gives some characters a meaning. Each grant must
// allow exactly the prefix written, never more.
import assert from 'node:assert/strict';
import { accessOfPolicy, bucketPolicy, s3Access } from '../../../src/core/clouds/aws/bucketPolicy';
import { prefixCondition } from '../../../src/core/clouds/gcp/bucketIam';

const UID = '0f8e2c1a-1111-4222-8333-444455556666';

/** The expression with every CEL string literal replaced by "S": what is left is the code. */
function celSkeleton(expr: string): { code: string; literals: string[] } {
  const literals: string[] = [];
  let code = '';
  for (let i = 0; i < expr.length; i++) {
    if (expr[i] !== '"') {
      code += expr[i];
      continue;
    }
    let lit = '';
    for (i++; expr[i] !== '"'; i++) {
      assert.ok(i < expr.length, `unterminated CEL string in ${expr}`);
      if (expr[i] === '\\') {
        i++;
        assert.ok(['\\', '"'].includes(expr[i]), `unexpected escape \\${expr[i]}`);
      }
      lit += expr[i];
    }
    literals.push(lit);
    code += 'S';
  }
  return { code, literals };
}

describe('bucket grants: prefixes with characters IAM gives a meaning (issue 16)', () => {
  it('AWS: "*" "?" and "$" in a prefix are escaped in the object ARNs and the list condition (no wildcard, no policy variable)', () => {
    const st = JSON.parse(bucketPolicy([{ store: 's3', bucket: 'b', prefix: 'runs/*/${aws:username}?' }])).Statement;
    // IAM policy grammar: ${*}, ${?} and ${$} are the literal characters in Resource and in String*Like conditions.
    assert.deepEqual(st[1].Condition, { StringLike: { 's3:prefix': ['runs/${*}/${$}{aws:username}${?}', 'runs/${*}/${$}{aws:username}${?}/*'] } });
    assert.deepEqual(st[2].Resource, ['arn:aws:s3:::b/runs/${*}/${$}{aws:username}${?}', 'arn:aws:s3:::b/runs/${*}/${$}{aws:username}${?}/*']);
  });

  it('AWS: a policy read back gives the prefix as the user wrote it (a widened role keeps it exact)', () => {
    const access = [{ store: 's3' as const, bucket: 'b', prefix: 'a*b/${x}' }, { store: 's3' as const, bucket: 'c' }];
    assert.deepEqual(accessOfPolicy(bucketPolicy(access)), access);
  });

  it('AWS: a bucket its holder manages (a managed job\'s named bucket) reads back as such; the others do not', () => {
    const access = [{ store: 's3' as const, bucket: 'made', manage: true as const }, { store: 's3' as const, bucket: 'c', prefix: 'p' }];
    assert.deepEqual(accessOfPolicy(bucketPolicy(access)), access);
    assert.deepEqual(s3Access([{ store: 's3', bucket: 'x' }, { store: 's3', bucket: 'x', manage: true }, { store: 'gcs', bucket: 'g' }]), [{ store: 's3', bucket: 'x', manage: true }]);
    const st = JSON.parse(bucketPolicy(access)).Statement as { Action: string[]; Resource: string[] }[];
    const create = st.filter((s) => s.Action.includes('s3:CreateBucket'));
    assert.deepEqual(create.map((s) => s.Resource), [['arn:aws:s3:::made', 'arn:aws:s3:::made/*']]);
  });

  it('GCP: a prefix grants its own objects and listings, not those of a sibling that merely starts with the same letters', () => {
    const c = prefixCondition('bkt', 'data', UID) as { expression: string };
    const { code, literals } = celSkeleton(c.expression);
    assert.equal(code, 'resource.name == S || resource.name.startsWith(S) || api.getAttribute(S, S) == S || api.getAttribute(S, S).startsWith(S)');
    assert.deepEqual(literals, [
      'projects/_/buckets/bkt/objects/data', 'projects/_/buckets/bkt/objects/data/',
      'storage.googleapis.com/objectListPrefix', '', 'data', 'storage.googleapis.com/objectListPrefix', '', 'data/',
    ]);
  });

  it('GCP: quotes and backslashes in a prefix stay inside their CEL string literal (no injected code)', () => {
    const evil = 'x") || true || ("\\';
    const { code, literals } = celSkeleton((prefixCondition('bkt', evil, UID) as { expression: string }).expression);
    assert.equal(code, 'resource.name == S || resource.name.startsWith(S) || api.getAttribute(S, S) == S || api.getAttribute(S, S).startsWith(S)');
    assert.equal(literals[0], `projects/_/buckets/bkt/objects/${evil}`);
    assert.equal(literals[7], `${evil}/`);
  });

  it('GCP: a very long prefix keeps the condition within IAM\'s limits (title 100, description 256), so it is not refused and widened to the whole bucket', () => {
    const c = prefixCondition('bkt', 'p'.repeat(1000), UID) as { title: string; description: string; expression: string };
    assert.ok(c.title.length <= 100, `title ${c.title.length}`);
    assert.ok(c.description.length <= 256, `description ${c.description.length}`);
    assert.ok(c.expression.includes('p'.repeat(1000)));
  });
});
