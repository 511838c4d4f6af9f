import { listClusters } from '../state';
import { isLive, TAG_UID, TAG_WORKSPACE, TAG_CLUSTER, type InstanceInfo } from '../clouds/provider';
import type { ProvisionEnv } from './env';
import { call, callWithRetry, describeFailure } from './call';

export interface LeakedInstance {
  cloud: string;
  instance: InstanceInfo;
  cluster: string;
  uid: string;
  workspace: string;
  ageMs: number;
  /** USD spent so far at the listed price, when the provider knows it. */
  costSoFar?: number;
}

export interface SweepResult {
  thisWorkspace: LeakedInstance[];
  otherWorkspaces: LeakedInstance[];
  /** Clouds whose listing failed: their strays are unknown, not absent. */
  errors: { cloud: string; message: string }[];
}

/**
 * Live instances carrying Skydeck tags whose uid no row owns (leak invariant 5). The listing
 * comes first and the rows are read after it: a launch writes its row before creating, so
 * an instance listed here whose row is missing is really unowned.
 */
export async function findLeaked(envs: ProvisionEnv[], wsId: string): Promise<SweepResult> {
  const out: SweepResult = { thisWorkspace: [], otherWorkspaces: [], errors: [] };
  const listed = await Promise.all(envs.map(async (env) => ({ env, r: await callWithRetry(() => env.provider.listTagged(), {
    clock: env.clock, retries: env.timing.transientRetries, backoffMs: env.timing.backoffMs,
  }) })));
  if (!envs.length) return out;
  const owned = new Set((await envs[0].store.read((db) => listClusters(db))).map((c) => c.uid));
  for (const { env, r } of listed) {
    if (!r.ok) {
      out.errors.push({ cloud: env.provider.cloud, message: describeFailure(r) });
      continue;
    }
    for (const i of r.value) {
      const uid = i.tags[TAG_UID];
      if (!uid || owned.has(uid) || !isLive(i.status)) continue;
      const ageMs = Math.max(0, env.clock.now() - i.launchedAt);
      const leak: LeakedInstance = {
        cloud: env.provider.cloud, instance: i, uid, cluster: i.tags[TAG_CLUSTER] ?? '?', workspace: i.tags[TAG_WORKSPACE] ?? '?', ageMs,
        ...(i.costPerHour !== undefined ? { costSoFar: (i.costPerHour * ageMs) / 3_600_000 } : {}),
      };
      (leak.workspace === wsId ? out.thisWorkspace : out.otherWorkspaces).push(leak);
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
  const ref = { uid: leak.uid, region: leak.instance.region, zone: leak.instance.zone };
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
async function lookUp(env: ProvisionEnv, ref: { uid: string; region?: string; zone?: string }, id: string): Promise<{ ok: boolean; found?: InstanceInfo }> {
  const q = await call(() => env.provider.queryInstances(ref));
  if (!q.ok) return { ok: false };
  const found = q.value.find((x) => x.id === id);
  if (found) return { ok: true, found };
  const all = await call(() => env.provider.listTagged());
  return all.ok ? { ok: true, found: all.value.find((x) => x.id === id) } : { ok: false };
}
