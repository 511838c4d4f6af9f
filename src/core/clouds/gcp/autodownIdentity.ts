import { ProviderError } from '../provider';
import { gcpRest } from './iamRest';
import { AUTODOWN, iamStepError, isRestStatus } from './iamErrors';
import { customRoleName, ensureCustomRole, ensureProjectBinding, type IdentityOptions, type RoleSpec } from './customRole';
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
export type { IdentityOptions };

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
  return customRoleName(project, AUTODOWN_ROLE_ID);
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

const AUTODOWN_ROLE: RoleSpec = {
  id: AUTODOWN_ROLE_ID, title: 'Skydeck autodown', description: 'What a Skydeck head needs to delete its own idle cluster',
  permissions: AUTODOWN_PERMISSIONS, purpose: AUTODOWN,
};

const ensureRole = (o: IdentityOptions) => ensureCustomRole(o, AUTODOWN_ROLE);

const ensureBinding = (o: IdentityOptions, email: string) => ensureProjectBinding(o, autodownRole(o.project), email, AUTODOWN);
