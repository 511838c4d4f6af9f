import { isAccountNotVisible } from './iamErrors';
import { IAM_MAX_TRIES as MAX_TRIES, iamBackoffMs, sleepMs } from './iamBackoff';

// One etag read-modify-write of an IAM allow policy (google.iam.v1.Policy: version, bindings,
// etag), whatever holds it: a bucket (Storage JSON API, stale etag → 412) or a project
// (Resource Manager, stale etag → 409 ABORTED). The etag makes a concurrent writer's change fail
// ours instead of being overwritten: then read again and redo the change.

export interface Binding { role: string; members?: string[]; condition?: unknown }
export interface Policy { version?: number; bindings?: Binding[]; etag?: string; [field: string]: unknown }

export interface PolicyEdit {
  /** For messages: "the IAM policy of bucket b". */
  what: string;
  read(): Promise<Policy>;
  write(policy: Policy): Promise<unknown>;
  /** The bindings to write (given a copy to change), or undefined when nothing needs changing. */
  change(bindings: Binding[]): Binding[] | undefined;
  /** The answer to a write whose etag is stale. */
  isStale(e: unknown): boolean;
  /** An account created moments ago that IAM may not see yet ("does not exist"): waited for. */
  newAccount?: string;
  backoffMs: number;
  log?(message: string): void;
  /** Turns a read or write failure into the error thrown (the caller names the step and the fix). */
  fail(e: unknown, step: 'read' | 'write'): Error;
}

/** True when the policy was written, false when it already said what was wanted. */
export async function editPolicy(o: PolicyEdit): Promise<boolean> {
  for (let attempt = 1; ; attempt++) {
    let policy: Policy;
    try {
      policy = await o.read();
    } catch (e) {
      throw o.fail(e, 'read');
    }
    const next = o.change((policy.bindings ?? []).map((b) => ({ ...b, members: [...(b.members ?? [])] })));
    if (!next) return false;
    // A conditional binding is only accepted in a version 3 policy (and read whole only as one).
    const version = next.some((b) => b.condition) ? 3 : policy.version;
    try {
      await o.write({ ...policy, ...(version ? { version } : {}), bindings: next });
      return true;
    } catch (e) {
      const stale = o.isStale(e);
      if ((stale || (o.newAccount && isAccountNotVisible(e, o.newAccount))) && attempt < MAX_TRIES) {
        o.log?.(stale
          ? `GCP: ${o.what} changed while Skydeck updated it; reading it again (try ${attempt + 1}/${MAX_TRIES})`
          : `GCP: the new service account ${o.newAccount} is not visible to IAM yet; waiting (try ${attempt + 1}/${MAX_TRIES})`);
        await sleepMs(iamBackoffMs(o.backoffMs, attempt));
        continue;
      }
      throw o.fail(e, 'write');
    }
  }
}

/** The bindings without `member` in any binding of `role` (conditional or not); undefined when it is in none. */
export function withoutMember(bindings: Binding[], role: string, member: string): Binding[] | undefined {
  if (!bindings.some((b) => b.role === role && b.members?.includes(member))) return undefined;
  return bindings
    .map((b) => (b.role === role ? { ...b, members: (b.members ?? []).filter((m) => m !== member) } : b))
    .filter((b) => (b.members ?? []).length > 0);
}
