// IAM state of one fake project: service accounts, custom roles and the project's allow policy
// (bindings + etag), the permissions they grant, and the faults a test turns on. Resource shapes
// follow the IAM v1 REST reference (ServiceAccount, Role) and Cloud Resource Manager v1 (Policy).
import { createHash, randomBytes } from 'node:crypto';
import { forbidden, invalid, rpcError } from './bodies';
import type { Json } from './model';
import { evaluateCondition, type ConditionResource } from './conditions';

export interface FakeBinding { role: string; members: string[]; condition?: Json }

export interface FakeRole extends Json {
  name: string;
  includedPermissions: string[];
  etag: string;
  deleted?: boolean;
}

/** The few predefined roles the fake knows, as predicates over permission names. */
const PREDEFINED: Record<string, (permission: string) => boolean> = {
  'roles/owner': () => true,
  // Editor: nearly everything but IAM policy changes (what matters here: all of compute).
  'roles/editor': (p) => !/\.setIamPolicy$/.test(p),
  'roles/viewer': (p) => /\.(get|list)$/.test(p),
  // Service Account User: act as the account(s) it is granted on (and read them).
  'roles/iam.serviceAccountUser': (p) => ['iam.serviceAccounts.actAs', 'iam.serviceAccounts.get', 'iam.serviceAccounts.list'].includes(p),
};

/** A service account's own allow policy (IAM v1 serviceAccounts.getIamPolicy / setIamPolicy). */
interface AccountPolicy { bindings: FakeBinding[]; revision: number }

const etagOf = (n: number) => Buffer.from(createHash('sha256').update(String(n)).digest().subarray(0, 8)).toString('base64');

export class FakeIam {
  readonly accounts = new Map<string, Json>(); // by e-mail
  readonly roles = new Map<string, FakeRole>(); // by full name, projects/P/roles/ID
  bindings: FakeBinding[];
  private revision = 1;
  /** Permissions the caller (the launching user's token) lacks: calls needing them are refused with 403. */
  readonly callerLacks = new Set<string>();
  /** Compute refuses each account created from now on this many times as "does not exist" (IAM is eventually consistent). */
  propagationMisses = 0;
  private readonly unseen = new Map<string, number>();
  /** One is run (and dropped) just before each setIamPolicy is applied: a concurrent writer. */
  readonly beforeSetPolicy: (() => void)[] = [];
  /** Accounts deleted (IAM keeps a deleted account's e-mail unusable in policies). */
  readonly deleted = new Set<string>();
  /** serviceAccounts.list pages at most this many (tests: small, so callers follow nextPageToken). */
  listPageSize = 100;
  /** Every setIamPolicy request body, in order. */
  readonly setPolicyCalls: Json[] = [];
  /** Each account's own policy, by e-mail (gone with the account, as in IAM). */
  readonly accountPolicies = new Map<string, AccountPolicy>();

  constructor(readonly project: string, readonly projectNumber: string) {
    // A new project: the Compute Engine default account holds Editor (GCP's automatic grant).
    this.bindings = [
      { role: 'roles/editor', members: [`serviceAccount:${this.defaultAccount}`] },
      { role: 'roles/owner', members: ['user:tester@example.com'] },
    ];
  }

  get defaultAccount(): string {
    return `${this.projectNumber}-compute@developer.gserviceaccount.com`;
  }

  get etag(): string {
    return etagOf(this.revision);
  }

  /** Refuses a call of the launching user that needs `permission` it was not given. */
  caller(permission: string, message: string): void {
    if (this.callerLacks.has(permission)) throw rpcError(403, 'PERMISSION_DENIED', message);
  }

  /** A change by someone else (another admin, another tool): the policy's etag moves on. */
  addBinding(role: string, member: string): void {
    const b = this.bindings.find((x) => x.role === role && !x.condition);
    if (b) b.members.push(member);
    else this.bindings.push({ role, members: [member] });
    this.revision++;
  }

  createAccount(accountId: string, sa: Json): Json {
    const email = `${accountId}@${this.project}.iam.gserviceaccount.com`;
    if (this.accounts.has(email)) throw rpcError(409, 'ALREADY_EXISTS', `Service account ${accountId} already exists within project projects/${this.project}.`);
    const uniqueId = String(10n ** 20n + BigInt(`0x${randomBytes(8).toString('hex')}`)); // 21 digits, as IAM's
    const out = {
      name: `projects/${this.project}/serviceAccounts/${email}`, projectId: this.project, uniqueId, email,
      ...(sa.displayName ? { displayName: sa.displayName } : {}), ...(sa.description ? { description: sa.description } : {}),
      etag: 'MDEwMjE5MjA=', oauth2ClientId: uniqueId,
    };
    this.accounts.set(email, out);
    if (this.propagationMisses) this.unseen.set(email, this.propagationMisses);
    return out;
  }

  /** instances.insert naming `email`: the caller must hold actAs, and Compute must see the account. */
  checkAttach(email: string): void {
    const resource = `projects/${this.project}/serviceAccounts/${email}`;
    if (this.callerLacks.has('iam.serviceAccounts.actAs')) throw forbidden('iam.serviceAccounts.actAs', resource);
    const misses = this.unseen.get(email) ?? 0;
    if (misses > 0) this.unseen.set(email, misses - 1);
    if ((email !== this.defaultAccount && !this.accounts.has(email)) || misses > 0) {
      throw invalid(`Invalid value for field 'resource.serviceAccounts[0].email': '${email}'. Service account ${email} does not exist.`);
    }
  }

  /** serviceAccounts.getIamPolicy: 404 for an account that does not exist. */
  accountPolicy(email: string): Json {
    if (!this.accounts.has(email)) throw rpcError(404, 'NOT_FOUND', `Service account projects/${this.project}/serviceAccounts/${email} not found.`);
    const p = this.accountPolicies.get(email) ?? { bindings: [], revision: 1 };
    return { version: 1, etag: etagOf(1000 + p.revision), ...(p.bindings.length ? { bindings: p.bindings.map((b) => ({ ...b, members: [...b.members] })) } : {}) };
  }

  /** serviceAccounts.setIamPolicy: a stale etag is ABORTED; a member account must exist. */
  setAccountPolicy(email: string, policy: Json): Json {
    const cur = this.accountPolicies.get(email) ?? { bindings: [], revision: 1 };
    if (!this.accounts.has(email)) throw rpcError(404, 'NOT_FOUND', `Service account projects/${this.project}/serviceAccounts/${email} not found.`);
    if (policy.etag !== undefined && policy.etag !== etagOf(1000 + cur.revision)) {
      throw rpcError(409, 'ABORTED', 'There were concurrent policy changes. Please retry the whole read-modify-write with exponential backoff.');
    }
    const bindings = ((policy.bindings ?? []) as FakeBinding[]).map((b) => ({ ...b, members: [...(b.members ?? [])] }));
    for (const m of bindings.flatMap((b) => b.members)) {
      const sa = /^serviceAccount:(.+)$/.exec(m)?.[1];
      if (sa && sa !== this.defaultAccount && !this.accounts.has(sa)) throw rpcError(400, 'INVALID_ARGUMENT', `Service account ${sa} does not exist.`);
    }
    this.accountPolicies.set(email, { bindings, revision: cur.revision + 1 });
    return this.accountPolicy(email);
  }

  /**
   * Whether `email` holds `permission` on `resource`: by a plain binding of the project's policy
   * anywhere, or a conditional one where its condition holds for the resource (conditions.ts,
   * which throws on a form it does not know); on a service account also by a binding in that
   * account's own policy (IAM's hierarchy: a policy on the resource or above), so
   * iam.serviceAccounts.actAs can be held on one account alone. A conditional binding asked about
   * without a resource is refused loudly too: IAM always checks a permission on some resource.
   */
  allows(email: string, permission: string, resource?: ConditionResource): boolean {
    const member = `serviceAccount:${email}`;
    const target = /^projects\/[^/]+\/serviceAccounts\/([^/]+)$/.exec(resource?.name ?? '')?.[1];
    const own = target ? this.accountPolicies.get(target)?.bindings ?? [] : [];
    const holding = [...this.bindings, ...own].filter((b) => b.members.includes(member) && this.grants(b.role, permission));
    if (holding.some((b) => !b.condition)) return true;
    return holding.some((b) => {
      const expression = String((b.condition as { expression?: unknown }).expression ?? '');
      if (!resource) throw new Error(`FakeIam.allows(${email}, ${permission}): the binding of ${b.role} has a condition and no resource was given`);
      return evaluateCondition(expression, resource);
    });
  }

  private grants(role: string, permission: string): boolean {
    const custom = this.roles.get(role);
    if (custom) return !custom.deleted && custom.stage !== 'DISABLED' && custom.includedPermissions.includes(permission);
    return PREDEFINED[role]?.(permission) ?? false;
  }

  /** projects.getIamPolicy: version 3 shows conditions; an older version hides them in the role name, as GCP does. */
  policy(requestedVersion: number): Json {
    const conditional = this.bindings.some((b) => b.condition);
    const bindings = this.bindings.map((b) => (!b.condition || requestedVersion >= 3
      ? { ...b, members: [...b.members] }
      : { role: `${b.role}_withcond_${createHash('sha1').update(JSON.stringify(b.condition)).digest('hex').slice(0, 20)}`, members: [...b.members] }));
    return { version: conditional && requestedVersion >= 3 ? 3 : 1, etag: this.etag, bindings };
  }

  /** projects.setIamPolicy: a stale etag is refused (409 ABORTED); every member and custom role must exist. */
  setPolicy(policy: Json): Json {
    this.beforeSetPolicy.shift()?.();
    if (policy.etag !== undefined && policy.etag !== this.etag) {
      throw rpcError(409, 'ABORTED', 'There were concurrent policy changes. Please retry the whole read-modify-write with exponential backoff.');
    }
    const bindings = ((policy.bindings ?? []) as FakeBinding[]).map((b) => ({ ...b, members: [...(b.members ?? [])] }));
    for (const b of bindings) {
      if (/_withcond_/.test(b.role) || (b.condition && Number(policy.version ?? 1) < 3)) {
        throw rpcError(400, 'INVALID_ARGUMENT', 'Conditional role bindings require policy version 3 or higher.');
      }
      if (b.role.startsWith('projects/') && !this.roles.get(b.role)) {
        throw rpcError(400, 'INVALID_ARGUMENT', `Role (${b.role}) does not exist in the resource's hierarchy.`);
      }
      for (const m of b.members) {
        const email = /^serviceAccount:(.+)$/.exec(m)?.[1];
        if (email && email !== this.defaultAccount && (!this.accounts.has(email))) {
          throw rpcError(400, 'INVALID_ARGUMENT', `Service account ${email} does not exist.`);
        }
      }
    }
    this.bindings = bindings;
    this.revision++;
    return this.policy(3);
  }
}
