import { ProviderError, type BucketAccess } from '../provider';

/** Where Skydeck's roles and instance profiles live in IAM: one path, so the sweep lists only ours. */
export const IAM_PATH = '/skydeck/';
export const POLICY_NAME = 'skydeck-buckets';

/** The role and instance profile name of a cluster (IAM names: [\w+=,.@-], at most 64). */
export function profileNameOf(uid: string): string {
  return `skydeck-${uid.replace(/[^\w+=,.@-]/g, '-').slice(0, 56)}`;
}

/** Who may take the role: EC2 instances (the instance profile hands it to the node). */
export const EC2_TRUST = JSON.stringify({
  Version: '2012-10-17',
  Statement: [{ Effect: 'Allow', Principal: { Service: 'ec2.amazonaws.com' }, Action: 'sts:AssumeRole' }],
});

/** The S3 buckets of a request, deduplicated (an entry that may manage its bucket wins); other stores are not AWS's to grant. */
export function s3Access(access: BucketAccess[] | undefined): BucketAccess[] {
  const seen = new Map<string, BucketAccess>();
  for (const a of access ?? []) {
    if (a.store !== 's3') continue;
    const k = `${a.bucket}/${a.prefix ?? ''}`;
    const had = seen.get(k);
    if (!had || (a.manage && !had.manage)) seen.set(k, had ? { ...had, manage: true } : a);
  }
  return [...seen.values()];
}

/**
 * What making and ending a bucket takes (storage/buckets/s3.ts create, tags, delete with its
 * emptying of every object version), on that bucket alone. Listing the account's buckets
 * (ListAllMyBuckets) is not included: it would show every bucket name of the account, and only
 * the adoption of a bucket left untagged by a crash mid-create asks for it.
 */
export const MANAGE_ACTIONS = ['s3:CreateBucket', 's3:PutBucketTagging', 's3:GetBucketTagging', 's3:ListBucketVersions', 's3:DeleteObjectVersion', 's3:DeleteBucket'];

const LOCATE_ACTION = 's3:GetBucketLocation';
const LIST_ACTION = 's3:ListBucket';
const OBJECT_ACTIONS = ['s3:GetObject', 's3:PutObject', 's3:DeleteObject', 's3:AbortMultipartUpload', 's3:ListMultipartUploadParts'];
/**
 * Every action bucketPolicy() gives a bucket that is not `manage`d: all a cluster's role (and so
 * a managed job's cluster's) is ever allowed. The job-role permissions boundary
 * (jobBoundary.ts) holds exactly these.
 */
export const NODE_BUCKET_ACTIONS = [LOCATE_ACTION, LIST_ACTION, ...OBJECT_ACTIONS];

/**
 * The prefix as IAM must read it: "*" and "?" are wildcards in Resource ARNs and StringLike
 * conditions, and "${...}" a policy variable, so each is written as its IAM escape (${*}, ${?},
 * ${$}). Any object key is legal, so a prefix may hold them; unescaped, "runs/*" would grant
 * every sibling of runs/.
 */
const iamPrefix = (p: string | undefined) => (p ?? '').replace(/^\/+|\/+$/g, '').replace(/[$*?]/g, (c) => `\${${c}}`);
const plainPrefix = (p: string) => p.replace(/\$\{([$*?])\}/g, '$1');

/**
 * What rclone needs on exactly these buckets, and nothing else: locate the bucket, list it
 * (only under the prefix when the mount names one), and read, write, delete and
 * multipart-upload objects under it. Writes are needed: MOUNT writes straight to the bucket.
 * The object named exactly like the prefix is included: rclone looks it up (is the root a file?).
 */
export function bucketPolicy(access: BucketAccess[]): string {
  const buckets = [...new Set(access.map((a) => a.bucket))];
  const locate = { Effect: 'Allow', Action: [LOCATE_ACTION], Resource: buckets.map((b) => `arn:aws:s3:::${b}`) };
  const list = access.map((a) => {
    const prefix = iamPrefix(a.prefix);
    return {
      Effect: 'Allow', Action: [LIST_ACTION], Resource: `arn:aws:s3:::${a.bucket}`,
      ...(prefix ? { Condition: { StringLike: { 's3:prefix': [prefix, `${prefix}/*`] } } } : {}),
    };
  });
  const objects = {
    Effect: 'Allow',
    Action: OBJECT_ACTIONS,
    Resource: access.flatMap((a) => {
      const prefix = iamPrefix(a.prefix);
      return prefix ? [`arn:aws:s3:::${a.bucket}/${prefix}`, `arn:aws:s3:::${a.bucket}/${prefix}/*`] : [`arn:aws:s3:::${a.bucket}/*`];
    }),
  };
  const managed = [...new Set(access.filter((a) => a.manage).map((a) => a.bucket))];
  const manage = managed.length ? [{ Effect: 'Allow', Action: MANAGE_ACTIONS, Resource: managed.flatMap((b) => [`arn:aws:s3:::${b}`, `arn:aws:s3:::${b}/*`]) }] : [];
  return JSON.stringify({ Version: '2012-10-17', Statement: [locate, ...list, objects, ...manage] });
}

/**
 * IAM's quota for a role's inline policies together: 10,240 characters, white space not
 * counted (IAM User Guide, "IAM and AWS STS quotas"). The document is written without any.
 */
export const ROLE_POLICY_MAX = 10_240;

/**
 * The role's policy for `access`, or a config error naming the limit when IAM would refuse it
 * (LimitExceeded at PutRolePolicy, after the role is made): said before anything is created.
 * `besides` is the length of the role's other inline policy (a managed-jobs controller's own,
 * controllerPolicy.ts): the quota is for both together, so a document that fits alone may not.
 */
export function boundedBucketPolicy(access: BucketAccess[], besides = 0): string {
  const doc = bucketPolicy(access);
  if (doc.length + besides <= ROLE_POLICY_MAX) return doc;
  const buckets = new Set(access.map((a) => a.bucket)).size;
  const room = besides ? ` (the managed-jobs controller's own policy of ${besides} characters leaves ${ROLE_POLICY_MAX - besides})` : '';
  throw new ProviderError('config', `the task's ${access.length} S3 mount(s) on ${buckets} bucket(s) need an IAM policy of ${doc.length} characters, more than the ${ROLE_POLICY_MAX.toLocaleString('en-US')} AWS allows a role${room}`,
    'mount fewer buckets or prefixes (one prefix higher up covers several below it), or copy them into one bucket');
}

/**
 * The buckets (and prefixes) a policy written by bucketPolicy() allows, read back from its
 * ListBucket statements (one per bucket/prefix), each marked `manage` where a CreateBucket
 * statement names its bucket; anything else in the document is ignored.
 */
export function accessOfPolicy(doc: string): BucketAccess[] {
  let parsed: { Statement?: unknown };
  try {
    parsed = JSON.parse(doc) as { Statement?: unknown };
  } catch {
    return [];
  }
  const statements = Array.isArray(parsed.Statement) ? parsed.Statement as Record<string, unknown>[] : [];
  const managed = new Set(statements.flatMap((st) => {
    if (st.Effect !== 'Allow' || !([] as unknown[]).concat(st.Action).includes('s3:CreateBucket')) return [];
    return ([] as unknown[]).concat(st.Resource).flatMap((r) => {
      const m = typeof r === 'string' ? /^arn:aws:s3:::([^/]+)$/.exec(r) : null;
      return m ? [m[1]] : [];
    });
  }));
  return statements.flatMap((st) => {
    const actions = ([] as unknown[]).concat(st.Action);
    const arn = typeof st.Resource === 'string' ? /^arn:aws:s3:::([^/]+)$/.exec(st.Resource) : null;
    if (st.Effect !== 'Allow' || !actions.includes('s3:ListBucket') || !arn) return [];
    const cond = (st.Condition as { StringLike?: Record<string, unknown> } | undefined)?.StringLike?.['s3:prefix'];
    const prefix = Array.isArray(cond) && typeof cond[0] === 'string' ? plainPrefix(cond[0]) : '';
    return [{ store: 's3' as const, bucket: arn[1], ...(prefix ? { prefix } : {}), ...(managed.has(arn[1]) ? { manage: true as const } : {}) }];
  });
}
