// The part of "Check Clouds" for GCP that needs neither the SDK nor the network, so the
// extension may import this file eagerly (see check.ts for the full check).
import type { ProviderErrorKind } from '../provider';
import { ADC_FIX, findAdc, localProject, PROJECT_FIX } from './project';
import type { GcpProviderOptions } from './options';

export type GcpCheck =
  | { ok: true; details: { project: string; credentials: string; account?: string; zones: string[] } }
  | { ok: false; kind: ProviderErrorKind; reason: string; fix: string };

/**
 * What can be known with no SDK and no network: are there credentials and a project at all?
 * Answers undefined when both look present (then only a call can tell).
 */
export function checkGcpLocal(opts: GcpProviderOptions = {}): Extract<GcpCheck, { ok: false }> | undefined {
  if (!opts.authClient && !findAdc(opts)) {
    return { ok: false, kind: 'auth', reason: 'no Application Default Credentials found (GOOGLE_APPLICATION_CREDENTIALS is unset and gcloud has none)', fix: ADC_FIX };
  }
  if (!localProject(opts)) return { ok: false, kind: 'auth', reason: 'no GCP project is configured', fix: PROJECT_FIX };
  return undefined;
}
