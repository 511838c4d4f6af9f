// instances.setMetadata / setLabels / setTags (POST …/instances/{instance}/setMetadata etc.):
// each replaces the whole field, guarded by the fingerprint the caller read (a stale one is 412
// conditionNotMet, as Compute answers), and is an Operation that finishes a step later.
// instances.setServiceAccount replaces the VM's account (and scopes); Compute takes it on a
// stopped VM only. The fake
// serves them so a VM token's call is answered by IAM (permissions.ts) and, when allowed, changes
// the instance: a test sees both a refusal and what an allowed call would have done.
import { randomBytes } from 'node:crypto';
import { httpError } from './bodies';
import type { FakeInstance, FakeOperation, GceModel, Json } from './model';

const FIELDS = {
  setMetadata: { field: 'metadata', fingerprint: 'fingerprint' },
  setLabels: { field: 'labels', fingerprint: 'labelFingerprint' },
  setTags: { field: 'tags', fingerprint: 'fingerprint' },
} as const;

export type Setter = keyof typeof FIELDS;

const fresh = () => randomBytes(8).toString('base64');

/** The current fingerprint of the field (made on first read, as GCE always shows one). */
function fingerprintOf(i: FakeInstance, which: Setter): string {
  if (which === 'setLabels') return String(i.labelFingerprint ?? (i.labelFingerprint = fresh()));
  const f = ((i[FIELDS[which].field] ?? (i[FIELDS[which].field] = {})) as Json);
  return String(f.fingerprint ?? (f.fingerprint = fresh()));
}

export function runSetter(m: GceModel, i: FakeInstance, which: Setter, body: Json): FakeOperation {
  const want = body[FIELDS[which].fingerprint];
  if (want !== fingerprintOf(i, which)) {
    throw httpError(412, `Supplied fingerprint does not match current ${which === 'setLabels' ? 'label' : FIELDS[which].field} fingerprint.`, 'conditionNotMet', { location: 'If-Match', locationType: 'header' });
  }
  const op = m.operation(which, m.url(`zones/${i.zone}/instances/${i.name}`), i.zone);
  m.later(1, () => {
    if (which === 'setLabels') Object.assign(i, { labels: { ...((body.labels ?? {}) as Record<string, string>) }, labelFingerprint: fresh() });
    else i[FIELDS[which].field] = { ...(which === 'setMetadata' ? { kind: 'compute#metadata' } : {}), items: body.items ?? [], fingerprint: fresh() };
    m.finish(op);
  });
  return op;
}

/** instances.setServiceAccount ({email, scopes}): a running VM is refused (400), as Compute's reference says it must be stopped. */
export function runSetServiceAccount(m: GceModel, i: FakeInstance, body: Json): FakeOperation {
  if (i.status !== 'TERMINATED') throw httpError(400, `The instance '${String(i.name)}' must be stopped to set its service account.`, 'invalid');
  const op = m.operation('setServiceAccount', m.url(`zones/${i.zone}/instances/${i.name}`), i.zone);
  m.later(1, () => {
    i.serviceAccounts = body.email ? [{ email: String(body.email), scopes: [...((body.scopes ?? []) as string[])] }] : [];
    m.finish(op);
  });
  return op;
}
