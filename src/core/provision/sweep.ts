import { listClusters } from '../state';
import { isLive, TAG_UID, TAG_WORKSPACE, TAG_CLUSTER, type InstanceInfo } from '../clouds/provider';
import type { ProvisionEnv } from './env';
import { call, callWithRetry, describeFailure, type CallFailureKind } from './call';

export interface LeakedInstance {
  cloud: string;
  /** The account it was listed in (AWS account id, GCP project, Azure subscription). */
  account?: string;
  instance: InstanceInfo;
  cluster: string;
  uid: string;
  workspace: string;
  ageMs: number;
  /** USD spent so far at the listed price, when the provider knows it. */
  costSoFar?: number;
}

/** A part the sweep could not list: a whole cloud or account, or one region of it. */
export interface UnknownPart {
  cloud: string;
  account?: string;
  region?: string;
  kind: CallFailureKind;
  message: string;
}

/** An account the sweep listed, and the regions (or zones) it listed completely. */
export interface SweptAccount {
  cloud: string;
  account?: string;
  listed: string[];
}

/** A per-cluster identity (AWS bucket role) whose uid no row owns. */
export interface LeakedIdentity {
  cloud: string;
  account?: string;
  kind: string;
  name: string;
  uid: string;
  cluster: string;
  workspace: string;
}

export interface SweepResult {
  thisWorkspace: LeakedInstance[];
  otherWorkspaces: LeakedInstance[];
  /** Identities of clusters no row owns, any workspace (cost nothing; listed so they can be deleted). */
  strayIdentities?: LeakedIdentity[];
  /** What could not be listed: its strays are unknown, not absent (leak invariant 8). */
  errors: UnknownPart[];
  swept: SweptAccount[];
}

/**
 * Live instances carrying Skydeck tags whose uid no row owns (leak invariant 5), in the
 * account the credentials point at and in every account a row of that cloud records
 * (invariant 7: a cluster's account is part of its address). The listing comes first and
 * the rows are read after it: a launch writes its row before creating, so an instance listed
 * here whose row is missing is really unowned.
 */
export async function findLeaked(envs: ProvisionEnv[], wsId: string): Promise<SweepResult> {
  const out: SweepResult = { thisWorkspace: [], otherWorkspaces: [], errors: [], swept: [] };
  if (!envs.length) return out;
  const recorded = await envs[0].store.read((db) => listClusters(db).map((c) => ({ provider: c.provider, account: c.account })));
  const perCloud = await Promise.all(envs.map(async (env) => {
    const cloud = env.provider.cloud;
    const retry = { clock: env.clock, retries: env.timing.transientRetries, backoffMs: env.timing.backoffMs };
    const identity = env.provider.identity?.bind(env.provider);
    const accounts: (string | undefined)[] = [];
    if (identity) {
      const cur = await callWithRetry(() => identity(), retry);
      if (cur.ok) accounts.push(cur.value);
      else out.errors.push({ cloud, kind: cur.kind, message: `cannot tell which account the credentials point at: ${describeFailure(cur)}` });
      for (const r of recorded) if (r.provider === cloud && r.account && !accounts.includes(r.account)) accounts.push(r.account);
    } else {
      accounts.push(undefined);
    }
    return Promise.all(accounts.map(async (account) => ({
      env, account, r: await callWithRetry(() => env.provider.listTagged(account), retry),
    })));
  }));
  const owned = new Set((await envs[0].store.read((db) => listClusters(db))).map((c) => c.uid));
  for (const { env, account, r } of perCloud.flat()) {
    const cloud = env.provider.cloud;
    if (!r.ok) {
      out.errors.push({ cloud, ...(account ? { account } : {}), kind: r.kind, message: describeFailure(r) });
      continue;
    }
    const listedAccount = r.value.account || account;
    out.swept.push({ cloud, ...(listedAccount ? { account: listedAccount } : {}), listed: r.value.listed });
    for (const u of r.value.unlisted) out.errors.push({ cloud, ...(listedAccount ? { account: listedAccount } : {}), ...u });
    for (const i of r.value.instances) {
      const uid = i.tags[TAG_UID];
      if (!uid || owned.has(uid) || !isLive(i.status)) continue;
      const ageMs = Math.max(0, env.clock.now() - i.launchedAt);
      const leak: LeakedInstance = {
        cloud, ...(listedAccount ? { account: listedAccount } : {}), instance: i, uid, cluster: i.tags[TAG_CLUSTER] ?? '?', workspace: i.tags[TAG_WORKSPACE] ?? '?', ageMs,
        ...(i.costPerHour !== undefined ? { costSoFar: (i.costPerHour * ageMs) / 3_600_000 } : {}),
      };
      (leak.workspace === wsId ? out.thisWorkspace : out.otherWorkspaces).push(leak);
    }
    for (const id of r.value.identities ?? []) {
      const uid = id.tags[TAG_UID];
      if (!uid || owned.has(uid)) continue;
      (out.strayIdentities ??= []).push({
        cloud, ...(listedAccount ? { account: listedAccount } : {}), kind: id.kind, name: id.name, uid,
        cluster: id.tags[TAG_CLUSTER] ?? '?', workspace: id.tags[TAG_WORKSPACE] ?? '?',
      });
    }
  }
  return out;
}

/**
 * Terminates one leaked instance after checking again that no row owns its uid, and waits
 * for proof. Returns a message for the user; `confirmed` false means look again later.
 */
export async function terminateLeaked(env: ProvisionEnv, leak: LeakedInstance): Promise<{ confirmed: boolean; message: string }> {
  const owned = await env.store.read((db) => listClusters(db).some((c) => c.uid === leak.uid));
  if (owned) return { confirmed: false, message: `${leak.instance.id} belongs to cluster ${leak.cluster} now; use down instead` };
  const ref = { uid: leak.uid, region: leak.instance.region, zone: leak.instance.zone, ...(leak.account ? { account: leak.account } : {}) };
  const issued = await call(() => env.provider.terminateInstances(ref, [leak.instance.id]));
  if (!issued.ok) return { confirmed: false, message: `terminating ${leak.instance.id} failed: ${describeFailure(issued)}` };
  const start = env.clock.now();
  let lastIssue = start;
  for (;;) {
    const me = await lookUp(env, ref, leak.instance.id);
    if (me.ok && (!me.found || !isLive(me.found.status))) return { confirmed: true, message: `${leak.instance.id} (${leak.cluster}) is ${me.found?.status ?? 'gone'}` };
    if (env.clock.now() - start > env.timing.confirmTimeoutMs) {
      return { confirmed: false, message: `${leak.instance.id} is still ${me.ok ? me.found?.status : 'unknown'}; run the sweep again` };
    }
    if (env.clock.now() - lastIssue >= env.timing.reissueAfterMs) {
      await call(() => env.provider.terminateInstances(ref, [leak.instance.id]));
      lastIssue = env.clock.now();
    }
    await env.clock.sleep(env.timing.pollMs);
  }
}

/**
 * The instance as the cluster query shows it; when that query does not list it, as the
 * account-wide listing the sweep found it in shows it (the two can lag differently), so an
 * instance is "gone" only when neither lists it.
 */
async function lookUp(env: ProvisionEnv, ref: { uid: string; region?: string; zone?: string; account?: string }, id: string): Promise<{ ok: boolean; found?: InstanceInfo }> {
  const q = await call(() => env.provider.queryInstances(ref));
  if (!q.ok) return { ok: false };
  const found = q.value.find((x) => x.id === id);
  if (found) return { ok: true, found };
  const all = await call(() => env.provider.listTagged(ref.account));
  // A listing with parts it could not see proves nothing about what is missing from it.
  if (!all.ok || all.value.unlisted.length > 0) return { ok: false };
  return { ok: true, found: all.value.instances.find((x) => x.id === id) };
}
