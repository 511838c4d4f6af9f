import { GcpClients } from './clients';
import { gcpCall, toGcpError } from './errors';
import { findAdc } from './project';
import { checkGcpLocal, type GcpCheck } from './localCheck';
import type { GcpProviderOptions } from './options';
import type { Zone } from './types';

export { checkGcpLocal, type GcpCheck };

/**
 * "Is GCP usable?": the local check, then one zones.list call, which proves the credentials
 * work, the project exists and the Compute API is enabled for it. Lists the zones of
 * `opts.region` (all zones when none is set).
 */
export async function checkGcp(opts: GcpProviderOptions = {}): Promise<GcpCheck> {
  const local = checkGcpLocal(opts);
  if (local) return local;
  const c = new GcpClients(opts);
  try {
    const project = await c.projectId();
    const zones = await gcpCall('zones.list', async () => {
      const all = await c.list<Zone>(`projects/${project}/zones`);
      return all.flatMap((z) => (z.status !== 'DOWN' && z.name && (!opts.region || z.name.startsWith(`${opts.region}-`)) ? [z.name] : [])).sort();
    });
    const adc = findAdc(opts);
    return { ok: true, details: { project, credentials: adc?.source ?? 'injected', ...(adc?.account ? { account: adc.account } : {}), zones } };
  } catch (e) {
    const pe = toGcpError(e);
    return { ok: false, kind: pe.kind, reason: pe.message, fix: pe.hint ?? 'check the network connection to compute.googleapis.com and retry' };
  } finally {
    await c.close();
  }
}
