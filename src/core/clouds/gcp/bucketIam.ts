import { ProviderError } from '../provider';
import type { GcpClients } from './clients';
import { toGcpError } from './errors';
import { isRestStatus } from './iamErrors';
import { gcpRest } from './iamRest';
import { editPolicy, withoutMember, type Binding, type Policy } from './iamPolicyEdit';

// A cluster's account on the buckets its task names: roles/storage.objectAdmin (objects read,
// written, listed, deleted; nothing on the bucket itself) in each bucket's own IAM policy, never
// on the project. Cloud Storage JSON API v1: GET/PUT /storage/v1/b/{bucket}/iam (Policy with
// etag; a PUT carrying a stale etag answers 412 Precondition Failed).

export const BUCKET_ROLE = 'roles/storage.objectAdmin';

export interface BucketIamOptions {
  c: GcpClients;
  backoffMs: number;
  log?(message: string): void;
}

const iamPath = (bucket: string) => `/storage/v1/b/${encodeURIComponent(bucket)}/iam`;
/** A CEL string literal. */
const cel = (s: string) => `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;

/** IAM condition limits (cloud.google.com/iam/docs/conditions-overview: title 100, description 256). */
const TITLE_MAX = 100;
const DESCRIPTION_MAX = 256;

/**
 * A task naming a prefix gets the role only under it, by an IAM condition (Cloud Storage's
 * documented prefix pattern: objects by resource.name, listings by the objectListPrefix request
 * attribute). The prefix is a directory: "data" grants data and data/..., never data-old/...
 * (a bare startsWith would). Conditions need policy version 3 and uniform bucket-level access
 * on the bucket; where the bucket refuses one (400), the grant falls back to the whole bucket,
 * saying so; so nothing of ours may make a condition invalid (a long prefix is cut from the
 * description, which IAM limits, and stays whole in the expression).
 */
export function prefixCondition(bucket: string, prefix: string, uid: string): Binding['condition'] {
  const object = `projects/_/buckets/${bucket}/objects/${prefix}`;
  const listPrefix = 'api.getAttribute("storage.googleapis.com/objectListPrefix", "")';
  const description = `Skydeck cluster ${uid}: objects under ${prefix} only`;
  return {
    title: `skydeck-${uid.slice(0, 8)}`.slice(0, TITLE_MAX),
    description: description.length <= DESCRIPTION_MAX ? description : `${description.slice(0, DESCRIPTION_MAX - 3)}...`,
    expression: `resource.name == ${cel(object)} || resource.name.startsWith(${cel(`${object}/`)})`
      + ` || ${listPrefix} == ${cel(prefix)} || ${listPrefix}.startsWith(${cel(`${prefix}/`)})`,
  };
}

export async function grantBucket(o: BucketIamOptions, bucket: string, prefix: string | undefined, email: string, uid: string): Promise<void> {
  const member = `serviceAccount:${email}`;
  const condition = prefix ? prefixCondition(bucket, prefix, uid) : undefined;
  const same = (b: Binding) => b.role === BUCKET_ROLE && JSON.stringify(b.condition ?? null) === JSON.stringify(condition ?? null);
  const fix = `gcloud storage buckets add-iam-policy-binding gs://${bucket} --member ${member} --role ${BUCKET_ROLE}`;
  const edit = (cond: Binding['condition']) => editPolicy({
    what: `the IAM policy of bucket ${bucket}`, backoffMs: o.backoffMs, log: o.log, newAccount: email,
    read: () => gcpRest<Policy>(o.c, 'storage', 'GET', `${iamPath(bucket)}?optionsRequestedPolicyVersion=3`),
    write: (p) => gcpRest(o.c, 'storage', 'PUT', iamPath(bucket), p),
    isStale: (e) => isRestStatus(e, 412),
    change: (bindings) => {
      const mine = bindings.find((b) => (cond ? same(b) : b.role === BUCKET_ROLE && !b.condition));
      if (mine?.members?.includes(member)) return undefined;
      if (mine) mine.members = [...(mine.members ?? []), member];
      else bindings.push({ role: BUCKET_ROLE, members: [member], ...(cond ? { condition: cond } : {}) });
      return bindings;
    },
    fail: (e, step) => bucketError(e, bucket, step, fix),
  });
  try {
    await edit(condition);
  } catch (e) {
    if (!condition || !isRestStatus((e as { cause?: unknown }).cause, 400)) throw e;
    o.log?.(`GCP: bucket ${bucket} refused a condition limiting ${email} to ${prefix} (uniform bucket-level access off?); granting ${BUCKET_ROLE} on the whole bucket`);
    await edit(undefined);
  }
  o.log?.(`GCP: granted ${BUCKET_ROLE} on gs://${bucket}${prefix ? `/${prefix}` : ''} to ${email}`);
}

/** Removes the account from the bucket's policy; a bucket that is gone holds nothing to remove. */
export async function revokeBucket(o: BucketIamOptions, bucket: string, email: string): Promise<void> {
  const member = `serviceAccount:${email}`;
  const fix = `gcloud storage buckets remove-iam-policy-binding gs://${bucket} --member ${member} --role ${BUCKET_ROLE} --all`;
  try {
    const wrote = await editPolicy({
      what: `the IAM policy of bucket ${bucket}`, backoffMs: o.backoffMs, log: o.log,
      read: () => gcpRest<Policy>(o.c, 'storage', 'GET', `${iamPath(bucket)}?optionsRequestedPolicyVersion=3`),
      write: (p) => gcpRest(o.c, 'storage', 'PUT', iamPath(bucket), p),
      isStale: (e) => isRestStatus(e, 412),
      change: (bindings) => withoutMember(bindings, BUCKET_ROLE, member),
      fail: (e, step) => (step === 'read' && isRestStatus(e, 404) ? e as Error : bucketError(e, bucket, step, fix)),
    });
    if (wrote) o.log?.(`GCP: removed ${email} from the IAM policy of gs://${bucket}`);
  } catch (e) {
    if (!isRestStatus(e, 404)) throw e;
  }
}

function bucketError(e: unknown, bucket: string, step: 'read' | 'write', fix: string): Error {
  const action = step === 'read' ? 'buckets.getIamPolicy' : 'buckets.setIamPolicy';
  if (isRestStatus(e, 404)) return new ProviderError('config', `GCS bucket ${bucket} does not exist (${action})`, 'create the bucket, or fix its name in file_mounts');
  const out = isRestStatus(e, 403)
    ? new ProviderError('auth', `GCP: ${action} on bucket ${bucket}: your account lacks permission storage.buckets.${step === 'read' ? 'getIamPolicy' : 'setIamPolicy'} (${(e as Error).message})`, fix)
    : isRestStatus(e, 412) ? new ProviderError('transient', `GCP: ${action} on bucket ${bucket}: ${(e as Error).message}`) : toGcpError(e, action);
  return Object.assign(out, { cause: e });
}
