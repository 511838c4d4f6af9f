import { workspaceId } from '../state';
import { findLeaked, terminateLeaked, type LeakedInstance, type SweepResult } from '../provision';
import type { OpsContext } from './context';
import { envFor } from './providerEnv';

/**
 * The leak sweep: instances with Skydeck tags that no cluster row owns, on every cloud the
 * context has a provider for; this workspace's and other workspaces' listed apart.
 */
export async function findLeakedInstances(ctx: OpsContext, clouds?: string[]): Promise<SweepResult & { workspaceId: string }> {
  const wanted = clouds ?? [...(ctx.providers?.clouds ?? [])];
  const envs = wanted.map((c) => envFor(ctx, c));
  const wsId = await ctx.store.write((db) => workspaceId(db));
  return { ...(await findLeaked(envs, wsId)), workspaceId: wsId };
}

/** Terminates one leaked instance (after checking again that no row owns it), with proof. */
export function terminateLeakedInstance(ctx: OpsContext, leak: LeakedInstance): Promise<{ confirmed: boolean; message: string }> {
  return terminateLeaked(envFor(ctx, leak.cloud), leak);
}
