import { randomUUID } from 'node:crypto';
import type { GcpClients } from './clients';
import { ProviderError } from '../provider';
import { toGcpError } from './errors';
import { AUTODOWN, BUCKETS, actAsError, isAccountNotVisible, isActAsDenied, type IamPurpose } from './iamErrors';
import { IAM_MAX_TRIES as MAX_TRIES, iamBackoffMs, sleepMs } from './iamBackoff';
import type { NewInstance, Operation } from './types';
import { BUCKET_ACCOUNT_PREFIX, JOBS_ACCOUNT_PREFIX } from './accountTags';

export interface InsertTarget {
  c: GcpClients;
  project: string;
  zone: string;
  /** First wait before trying again (doubled each time, bounded). */
  backoffMs: number;
  /** Whose account a refused attach is about, for the message; default by the account's name. */
  purpose?: IamPurpose;
  log?(message: string): void;
}

/**
 * One instances.insert. A head carrying a service account created moments ago may be refused
 * because Compute does not see the account yet: tried again with backoff, a bounded number of
 * times, saying so. A refusal to attach the account names the permission and the fix.
 */
export async function insertInstance(t: InsertTarget, resource: NewInstance): Promise<Operation> {
  const email = resource.serviceAccounts?.[0]?.email ?? undefined;
  for (let attempt = 1; ; attempt++) {
    try {
      // A fresh requestId per try: the refused request created nothing to deduplicate against.
      return await t.c.post<Operation>(`projects/${t.project}/zones/${t.zone}/instances`, resource, { requestId: randomUUID() });
    } catch (e) {
      if (email && isActAsDenied(e)) throw actAsError(email, t.project, t.purpose ?? ([BUCKET_ACCOUNT_PREFIX, JOBS_ACCOUNT_PREFIX].some((x) => email.startsWith(x)) ? BUCKETS : AUTODOWN));
      if (!email || !isAccountNotVisible(e, email)) throw toGcpError(e, 'instances.insert');
      if (attempt >= MAX_TRIES) {
        throw new ProviderError('transient', `instances.insert: Compute Engine still does not see the service account ${email} after ${MAX_TRIES} tries`,
          'new service accounts usually become usable within minutes: launch again shortly');
      }
      const waitMs = iamBackoffMs(t.backoffMs, attempt);
      t.log?.(`GCP: Compute Engine does not see the service account ${email} yet (new accounts take a minute or two); `
        + `trying ${resource.name} again in ${Math.round(waitMs / 100) / 10} s (try ${attempt + 1}/${MAX_TRIES})`);
      await sleepMs(waitMs);
    }
  }
}
