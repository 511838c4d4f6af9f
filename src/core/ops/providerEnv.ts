import type { ClusterRecord } from '../state';
import type { Provider } from '../clouds/provider';
import { makeEnv, type ProvisionEnv } from '../provision';
import type { OpsContext } from './context';
import { OpsError } from './errors';

/** The provider of a cloud, if this build (or test) has one. */
export function providerOf(ctx: OpsContext, cloud: string): Provider | undefined {
  return ctx.providers?.get(cloud.toLowerCase());
}

/** The provision environment for a cloud; an OpsError naming the cloud when none exists. */
export function envFor(ctx: OpsContext, cloud: string): ProvisionEnv {
  const provider = providerOf(ctx, cloud);
  if (!provider) throw new OpsError('unavailable', `${cloud} is not available yet; this version runs tasks on "local" (this machine) and "ssh" (your machines)`);
  return makeEnv(ctx, provider);
}

/** True for rows the provision loop owns (anything but local and ssh). */
export function isProviderCluster(row: ClusterRecord): boolean {
  return row.provider !== 'local' && row.provider !== 'ssh';
}
