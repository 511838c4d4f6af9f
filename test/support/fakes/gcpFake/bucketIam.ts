// The IAM policies of Cloud Storage buckets, as the JSON API v1 serves them (REST reference:
// buckets.getIamPolicy GET /storage/v1/b/{bucket}/iam?optionsRequestedPolicyVersion=N and
// buckets.setIamPolicy PUT /storage/v1/b/{bucket}/iam with a Policy body; the Policy resource is
// {kind: "storage#policy", resourceId: "projects/_/buckets/{bucket}", version, bindings[{role,
// members, condition}], etag}). A PUT whose etag is not the current one answers 412
// Precondition Failed (reason conditionNotMet); a missing bucket 404; a condition needs version 3
// and uniform bucket-level access, and its title and description are limited (IAM Conditions
// overview, "Condition attributes": title at most 100 characters, description at most 256);
// an unknown service account member is 400. Bucket names are
// global, so one map serves every project of the fake.
import { createHash } from 'node:crypto';
import { httpError } from './bodies';
import type { FakeBinding } from './iam';
import type { GceModel, Json } from './model';

interface FakeBucket { bindings: FakeBinding[]; revision: number; uniform: boolean }

const etagOf = (bucket: string, n: number) => createHash('sha256').update(`${bucket}#${n}`).digest('base64').slice(0, 12);

export class FakeBucketIam {
  readonly buckets = new Map<string, FakeBucket>();
  /** One is run (and dropped) just before each setIamPolicy is applied: a concurrent writer. */
  readonly beforeSet: (() => void)[] = [];
  /** The next this many setIamPolicy calls naming a service account answer that it does not exist (IAM is eventually consistent). */
  accountMisses = 0;
  /** Every setIamPolicy (bucket, body), in order. */
  readonly setCalls: { bucket: string; body: Json }[] = [];

  constructor(private readonly projects: Map<string, GceModel>) {}

  /** A bucket that exists, with its owner's binding (GCS gives the project's owners one). */
  addBucket(name: string, o: { uniform?: boolean } = {}): void {
    this.buckets.set(name, { bindings: [{ role: 'roles/storage.legacyBucketOwner', members: ['projectOwner:skydeck-test'] }], revision: 1, uniform: o.uniform ?? true });
  }

  /** Someone else's change: the etag moves on. */
  touch(name: string, member = 'user:other@example.com'): void {
    const b = this.bucket(name);
    b.bindings.push({ role: 'roles/storage.objectViewer', members: [member] });
    b.revision++;
  }

  /** Members of `role` on the bucket, conditional bindings included. */
  members(name: string, role: string): string[] {
    return this.bucket(name).bindings.filter((b) => b.role === role).flatMap((b) => b.members);
  }

  route(method: string, url: URL, body: Json | undefined): unknown {
    const m = /^\/storage\/v1\/b\/([^/]+)\/iam$/.exec(url.pathname);
    if (!m) throw httpError(404, `Not Found: ${url.pathname}`, 'notFound');
    const name = decodeURIComponent(m[1]);
    if (method === 'GET') return this.policy(name, Number(url.searchParams.get('optionsRequestedPolicyVersion') ?? 1));
    if (method !== 'PUT') throw httpError(405, 'Method Not Allowed', 'methodNotAllowed');
    this.setCalls.push({ bucket: name, body: body ?? {} });
    const b = this.bucket(name);
    this.beforeSet.shift()?.();
    if (body?.etag !== undefined && body.etag !== etagOf(name, b.revision)) {
      throw httpError(412, 'Precondition Failed', 'conditionNotMet', { locationType: 'header', location: 'If-Match' });
    }
    const bindings = ((body?.bindings ?? []) as FakeBinding[]).map((x) => ({ ...x, members: [...(x.members ?? [])] }));
    for (const x of bindings) {
      if (x.condition && Number(body?.version ?? 1) < 3) throw httpError(400, 'IAM Policy with conditions must be version 3.', 'invalid');
      if (x.condition && !b.uniform) throw httpError(400, 'Conditions are only supported on buckets with uniform bucket-level access enabled.', 'invalid');
      const cond = (x.condition ?? {}) as { title?: string; description?: string };
      if ((cond.title ?? '').length > 100) throw httpError(400, 'Condition title must be at most 100 characters.', 'invalid');
      if ((cond.description ?? '').length > 256) throw httpError(400, 'Condition description must be at most 256 characters.', 'invalid');
      for (const member of x.members) {
        const email = /^serviceAccount:(.+)$/.exec(member)?.[1];
        const unseen = email && this.accountMisses > 0 && this.accountMisses--;
        if (email && (unseen || ![...this.projects.values()].some((p) => p.iam.accounts.has(email)))) throw httpError(400, `Service account ${email} does not exist.`, 'invalid');
      }
    }
    b.bindings = bindings;
    b.revision++;
    return this.policy(name, 3);
  }

  private policy(name: string, version: number): Json {
    const b = this.bucket(name);
    const conditional = b.bindings.some((x) => x.condition);
    if (conditional && version < 3) throw httpError(400, 'Policy has conditions; request version 3.', 'invalid');
    return {
      kind: 'storage#policy', resourceId: `projects/_/buckets/${name}`, version: conditional ? 3 : 1,
      bindings: b.bindings.map((x) => ({ ...x, members: [...x.members] })), etag: etagOf(name, b.revision),
    };
  }

  private bucket(name: string): FakeBucket {
    const b = this.buckets.get(name);
    if (!b) throw httpError(404, 'The specified bucket does not exist.', 'notFound');
    return b;
  }
}
