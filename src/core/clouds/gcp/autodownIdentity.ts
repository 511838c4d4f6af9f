import { ProviderError } from '../provider';
import type { GcpClients } from './clients';
import { gcpRest } from './iamRest';
import { iamStepError, isAccountNotVisible, isRestStatus } from './iamErrors';
import { IAM_MAX_TRIES as MAX_TRIES, iamBackoffMs, sleepMs } from './iamBackoff';
import { PROJECT_FIX, projectIdProblem } from './project';

// The identity an autodown head deletes its cluster with: one service account per project,
// skydeck-autodown, holding one project-level custom role with exactly what the head's
// self-stop calls — not the default compute account, which holds Editor on the project.
// Found or created on each autodown launch, so a second launch (or another machine) reuses it.
// Shapes: IAM v1 (projects.serviceAccounts, projects.roles) and Cloud Resource Manager v1
// (projects.getIamPolicy / setIamPolicy, Policy with etag), per their REST references.

export const AUTODOWN_ACCOUNT_ID = 'skydeck-autodown';
export const AUTODOWN_ROLE_ID = 'skydeckAutodown';

/**
 * agent/skydeck_agent_lib/gce_stop.py with down=true: instances.get of the head, instances.list
 * filtered by the cluster's uid label, instances.delete of each. It waits on no operation. GCP
 * autostop without down is an OS shutdown and calls nothing, so it needs no identity at all.
 */
export const AUTODOWN_PERMISSIONS = ['compute.instances.delete', 'compute.instances.get', 'compute.instances.list'];

interface ServiceAccount { email?: string; disabled?: boolean }
interface Role { name?: string; includedPermissions?: string[]; deleted?: boolean; etag?: string }
interface Binding { role: string; members?: string[]; condition?: unknown }
interface Policy { version?: number; bindings?: Binding[]; etag?: string }

export interface IdentityOptions {
  c: GcpClients;
  project: string;
  /** First wait of a retry (doubled each time, bounded). */
  backoffMs: number;
  log?(message: string): void;
}

/** "p" → skydeck-autodown@p.iam.gserviceaccount.com; a domain-scoped "example.com:p" → …@p.example.com.iam…. */
export function autodownEmail(project: string): string {
  return serviceAccountEmail(AUTODOWN_ACCOUNT_ID, project);
}

/** The e-mail IAM gives the account `accountId` of `project`. */
export function serviceAccountEmail(accountId: string, project: string): string {
  const [domain, id] = project.includes(':') ? project.split(':', 2) : ['', project];
  return `${accountId}@${id}${domain ? `.${domain}` : ''}.iam.gserviceaccount.com`;
}

export function autodownRole(project: string): string {
  return `projects/${project}/roles/${AUTODOWN_ROLE_ID}`;
}

/** The account's e-mail, once the account, the role and the project binding all exist. */
export async function ensureAutodownIdentity(o: IdentityOptions): Promise<string> {
  const bad = projectIdProblem(o.project);
  // The id goes unescaped into IAM and Resource Manager paths and into the gcloud fixes shown.
  if (bad) throw new ProviderError('config', `GCP autodown: the project ${bad}`, PROJECT_FIX);
  const email = await ensureAccount(o);
  await ensureRole(o);
  await ensureBinding(o, email);
  return email;
}

/**
 * The autodown role for another account of the project: a head that also reads buckets runs as
 * its cluster's own account (bucketIdentity.ts), as a VM carries one service account only.
 */
export async function grantAutodownRole(o: IdentityOptions, email: string): Promise<void> {
  await ensureRole(o);
  await ensureBinding(o, email);
}

/**
 * Per project, checked (and made) by each launch that needs it, so an account or binding
 * removed meanwhile is noticed; launches running together share one check.
 */
export class AutodownIdentities {
  private readonly running = new Map<string, Promise<string>>();

  constructor(private readonly base: Omit<IdentityOptions, 'project'>) {}

  account(project: string): Promise<string> {
    let p = this.running.get(project);
    if (!p) {
      p = ensureAutodownIdentity({ ...this.base, project });
      this.running.set(project, p);
      const done = () => this.running.delete(project);
      p.then(done, done);
    }
    return p;
  }
}

async function ensureAccount(o: IdentityOptions): Promise<string> {
  const { c, project } = o;
  const email = autodownEmail(project);
  const fix = `gcloud iam service-accounts create ${AUTODOWN_ACCOUNT_ID} --project ${project}`;
  const get = () => gcpRest<ServiceAccount>(c, 'iam', 'GET', `/v1/projects/${project}/serviceAccounts/${email}`);
  let sa: ServiceAccount | undefined;
  try {
    sa = await get();
  } catch (e) {
    if (!isRestStatus(e, 404)) throw iamStepError(e, 'serviceAccounts.get', 'iam.serviceAccounts.get', project, fix);
  }
  if (!sa) {
    o.log?.(`GCP: creating the service account ${email} for autodown`);
    try {
      sa = await gcpRest<ServiceAccount>(c, 'iam', 'POST', `/v1/projects/${project}/serviceAccounts`, {
        accountId: AUTODOWN_ACCOUNT_ID,
        serviceAccount: { displayName: 'Skydeck autodown', description: 'Deletes idle Skydeck clusters from their head VM' },
      });
    } catch (e) {
      // Another launch created it meanwhile: the same account, whatever its creator.
      if (!isRestStatus(e, 409)) throw iamStepError(e, 'serviceAccounts.create', 'iam.serviceAccounts.create', project, fix);
      sa = { email };
    }
  }
  if (sa.disabled) {
    throw new ProviderError('config', `GCP autodown: the service account ${email} is disabled`, `gcloud iam service-accounts enable ${email} --project ${project}`);
  }
  return sa.email ?? email;
}

async function ensureRole(o: IdentityOptions): Promise<void> {
  const { c, project } = o;
  const name = autodownRole(project);
  const perms = AUTODOWN_PERMISSIONS.join(',');
  const fix = `gcloud iam roles create ${AUTODOWN_ROLE_ID} --project ${project} --title "Skydeck autodown" --permissions ${perms}`;
  let role: Role | undefined;
  try {
    role = await gcpRest<Role>(c, 'iam', 'GET', `/v1/${name}`);
  } catch (e) {
    if (!isRestStatus(e, 404)) throw iamStepError(e, 'roles.get', 'iam.roles.get', project, fix);
  }
  if (!role) {
    o.log?.(`GCP: creating the custom role ${name} (${perms})`);
    try {
      await gcpRest(c, 'iam', 'POST', `/v1/projects/${project}/roles`, {
        roleId: AUTODOWN_ROLE_ID,
        role: { title: 'Skydeck autodown', description: 'What a Skydeck head needs to delete its own idle cluster', includedPermissions: AUTODOWN_PERMISSIONS, stage: 'GA' },
      });
    } catch (e) {
      if (!isRestStatus(e, 409)) throw iamStepError(e, 'roles.create', 'iam.roles.create', project, fix);
    }
    return;
  }
  if (role.deleted) {
    throw new ProviderError('config', `GCP autodown: the custom role ${name} was deleted`, `gcloud iam roles undelete ${AUTODOWN_ROLE_ID} --project ${project}`);
  }
  const have = [...(role.includedPermissions ?? [])].sort().join(',');
  if (have === perms) return;
  // Someone changed it: back to exactly what the head needs (wider would defeat the point).
  o.log?.(`GCP: setting the permissions of ${name} back to ${perms} (they were: ${have || 'none'})`);
  try {
    await gcpRest(c, 'iam', 'PATCH', `/v1/${name}?updateMask=includedPermissions`, { includedPermissions: AUTODOWN_PERMISSIONS, etag: role.etag });
  } catch (e) {
    throw iamStepError(e, 'roles.patch', 'iam.roles.update', project, `gcloud iam roles update ${AUTODOWN_ROLE_ID} --project ${project} --permissions ${perms}`);
  }
}

/**
 * Adds the binding by read-modify-write of the project policy. The etag makes a concurrent
 * writer's change fail ours with 409 ABORTED instead of being overwritten: then re-read and
 * retry. Version 3 is asked so conditional bindings of others are read and written back whole.
 */
async function ensureBinding(o: IdentityOptions, email: string): Promise<void> {
  const { c, project } = o;
  const role = autodownRole(project);
  const member = `serviceAccount:${email}`;
  const fix = `gcloud projects add-iam-policy-binding ${project} --member ${member} --role ${role}`;
  for (let attempt = 1; ; attempt++) {
    let policy: Policy;
    try {
      policy = await gcpRest<Policy>(c, 'crm', 'POST', `/v1/projects/${project}:getIamPolicy`, { options: { requestedPolicyVersion: 3 } });
    } catch (e) {
      throw iamStepError(e, 'projects.getIamPolicy', 'resourcemanager.projects.getIamPolicy', project, fix);
    }
    const bindings = (policy.bindings ?? []).map((b) => ({ ...b, members: [...(b.members ?? [])] }));
    const plain = bindings.find((b) => b.role === role && !b.condition);
    if (plain?.members.includes(member)) return;
    if (plain) plain.members.push(member);
    else bindings.push({ role, members: [member] });
    try {
      await gcpRest(c, 'crm', 'POST', `/v1/projects/${project}:setIamPolicy`, { policy: { ...policy, bindings } });
      o.log?.(`GCP: granted ${role} to ${email} on project ${project}`);
      return;
    } catch (e) {
      const stale = isRestStatus(e, 409, 'ABORTED');
      if ((stale || isAccountNotVisible(e, email)) && attempt < MAX_TRIES) {
        o.log?.(stale
          ? `GCP: the IAM policy of ${project} changed while Skydeck updated it; reading it again (try ${attempt + 1}/${MAX_TRIES})`
          : `GCP: the new service account ${email} is not visible to IAM yet; waiting (try ${attempt + 1}/${MAX_TRIES})`);
        await sleepMs(iamBackoffMs(o.backoffMs, attempt));
        continue;
      }
      throw iamStepError(e, 'projects.setIamPolicy', 'resourcemanager.projects.setIamPolicy', project, fix);
    }
  }
}
