import { ProviderError } from '../provider';
import type { GcpClients } from './clients';
import { gcpRest } from './iamRest';
import { iamStepError, isRestStatus, type IamPurpose } from './iamErrors';
import { editPolicy, withoutMember, type Policy } from './iamPolicyEdit';

// A project-level custom role Skydeck owns (IAM v1 projects.roles get/create/patch) and its
// bindings in the project's allow policy (Resource Manager v1 getIamPolicy / setIamPolicy, an
// etag read-modify-write: iamPolicyEdit.ts). One shape for each identity Skydeck gives a VM on
// the project: the autodown head (autodownIdentity.ts), the managed-jobs controller
// (controllerRole.ts). Each role holds exactly its list, set back to it when someone changed it.

export interface IdentityOptions {
  c: GcpClients;
  project: string;
  /** First wait of a retry (doubled each time, bounded). */
  backoffMs: number;
  log?(message: string): void;
}

export interface RoleSpec {
  /** The role id in the project ("skydeckAutodown"). */
  id: string;
  title: string;
  description: string;
  permissions: readonly string[];
  /** For messages and fixes: whose set-up failed. */
  purpose: IamPurpose;
}

interface Role { name?: string; includedPermissions?: string[]; deleted?: boolean; etag?: string }

export const customRoleName = (project: string, id: string) => `projects/${project}/roles/${id}`;

/** The role exists, is not deleted, and holds exactly `spec.permissions` (set back if it was changed). */
export async function ensureCustomRole(o: IdentityOptions, spec: RoleSpec): Promise<void> {
  const { c, project } = o;
  const name = customRoleName(project, spec.id);
  const want = [...spec.permissions].sort();
  const perms = want.join(',');
  const fix = `gcloud iam roles create ${spec.id} --project ${project} --title "${spec.title}" --permissions ${perms}`;
  let role: Role | undefined;
  try {
    role = await gcpRest<Role>(c, 'iam', 'GET', `/v1/${name}`);
  } catch (e) {
    if (!isRestStatus(e, 404)) throw iamStepError(e, 'roles.get', 'iam.roles.get', project, fix, spec.purpose);
  }
  if (!role) {
    o.log?.(`GCP: creating the custom role ${name} (${perms})`);
    try {
      await gcpRest(c, 'iam', 'POST', `/v1/projects/${project}/roles`, {
        roleId: spec.id, role: { title: spec.title, description: spec.description, includedPermissions: want, stage: 'GA' },
      });
    } catch (e) {
      if (!isRestStatus(e, 409)) throw iamStepError(e, 'roles.create', 'iam.roles.create', project, fix, spec.purpose);
    }
    return;
  }
  if (role.deleted) {
    throw new ProviderError('config', `${spec.purpose.label}: the custom role ${name} was deleted`, `gcloud iam roles undelete ${spec.id} --project ${project}`);
  }
  const have = [...(role.includedPermissions ?? [])].sort().join(',');
  if (have === perms) return;
  // Someone changed it: back to exactly the list (wider would defeat the point, narrower breaks the VM).
  o.log?.(`GCP: setting the permissions of ${name} back to ${perms} (they were: ${have || 'none'})`);
  try {
    await gcpRest(c, 'iam', 'PATCH', `/v1/${name}?updateMask=includedPermissions`, { includedPermissions: want, etag: role.etag });
  } catch (e) {
    throw iamStepError(e, 'roles.patch', 'iam.roles.update', project, `gcloud iam roles update ${spec.id} --project ${project} --permissions ${perms}`, spec.purpose);
  }
}

const readProjectPolicy = (o: IdentityOptions) =>
  gcpRest<Policy>(o.c, 'crm', 'POST', `/v1/projects/${o.project}:getIamPolicy`, { options: { requestedPolicyVersion: 3 } });

const policyFail = (o: IdentityOptions, fix: string, purpose: IamPurpose) => (e: unknown, step: 'read' | 'write') =>
  iamStepError(e, `projects.${step === 'read' ? 'get' : 'set'}IamPolicy`, `resourcemanager.projects.${step === 'read' ? 'get' : 'set'}IamPolicy`, o.project, fix, purpose);

/** An IAM Condition (google.type.Expr) on a binding: the title and expression identify it. */
export interface BindingCondition { title: string; description?: string; expression: string }

const sameCondition = (a: unknown, b: BindingCondition | undefined) => {
  if (!a || !b) return !a && !b;
  const x = a as Partial<BindingCondition>;
  return x.expression === b.expression && x.title === b.title;
};

const conditionFlag = (c: BindingCondition) => ` --condition='expression=${c.expression},title=${c.title}'`;

/**
 * The account holds `role` on the project by exactly one binding: plain, or under `condition`.
 * The member is taken out of the role's other bindings (a plain one would grant the role
 * unbounded; another condition is an older Skydeck's or someone's edit). Version 3 is read and
 * written back so others' conditional bindings stay whole; a concurrent writer's change (409
 * ABORTED) or an account IAM does not see yet is waited for and the edit made again.
 */
export async function ensureProjectBinding(o: IdentityOptions, role: string, email: string, purpose: IamPurpose, condition?: BindingCondition): Promise<void> {
  const member = `serviceAccount:${email}`;
  const fix = `gcloud projects add-iam-policy-binding ${o.project} --member ${member} --role ${role}${condition ? conditionFlag(condition) : ''}`;
  const wrote = await editPolicy({
    what: `the IAM policy of ${o.project}`, backoffMs: o.backoffMs, log: o.log, newAccount: email,
    read: () => readProjectPolicy(o),
    write: (policy) => gcpRest(o.c, 'crm', 'POST', `/v1/projects/${o.project}:setIamPolicy`, { policy }),
    isStale: (e) => isRestStatus(e, 409, 'ABORTED'),
    change: (bindings) => {
      const mine = bindings.find((b) => b.role === role && sameCondition(b.condition, condition));
      const elsewhere = bindings.some((b) => b.role === role && b !== mine && b.members?.includes(member));
      if (mine?.members?.includes(member) && !elsewhere) return undefined;
      const out = bindings
        .map((b) => (b.role === role && b !== mine ? { ...b, members: (b.members ?? []).filter((m) => m !== member) } : b))
        .filter((b) => b.role !== role || b === mine || (b.members ?? []).length > 0);
      if (!mine) out.push({ role, members: [member], ...(condition ? { condition: { ...condition } } : {}) });
      else if (!mine.members?.includes(member)) mine.members = [...(mine.members ?? []), member];
      return out;
    },
    fail: policyFail(o, fix, purpose),
  });
  if (wrote) o.log?.(`GCP: granted ${role} to ${email} on project ${o.project}${condition ? ` under the condition "${condition.title}"` : ''}`);
}

/**
 * Takes the account out of every binding of `role` on the project, then reads the policy again
 * to prove it: resolves to true when a binding was removed, false when there was none.
 */
export async function removeProjectBinding(o: IdentityOptions, role: string, email: string, purpose: IamPurpose): Promise<boolean> {
  const member = `serviceAccount:${email}`;
  const fix = `gcloud projects remove-iam-policy-binding ${o.project} --member ${member} --role ${role} --all`;
  const fail = policyFail(o, fix, purpose);
  const wrote = await editPolicy({
    what: `the IAM policy of ${o.project}`, backoffMs: o.backoffMs, log: o.log,
    read: () => readProjectPolicy(o),
    write: (policy) => gcpRest(o.c, 'crm', 'POST', `/v1/projects/${o.project}:setIamPolicy`, { policy }),
    isStale: (e) => isRestStatus(e, 409, 'ABORTED'),
    change: (bindings) => withoutMember(bindings, role, member),
    fail,
  });
  let after: Policy;
  try {
    after = await readProjectPolicy(o);
  } catch (e) {
    throw fail(e, 'read');
  }
  if ((after.bindings ?? []).some((b) => b.role === role && b.members?.includes(member))) {
    throw new ProviderError('transient', `${purpose.label}: ${email} still holds ${role} on project ${o.project} after its removal`, fix);
  }
  if (wrote) o.log?.(`GCP: removed ${email} from ${role} on project ${o.project} (projects.getIamPolicy shows no such binding)`);
  return wrote;
}
