// `infra: cloud[/region[/zone]]` and the cloud names Skydeck can launch on.

import { KUBERNETES_ALIASES, SKYDECK_CLOUDS } from './names';

export interface Placement {
  cloud?: string;
  region?: string;
  zone?: string;
}

/**
 * Splits an infra string (already checked against the schema pattern). `*` parts mean "any".
 * For Kubernetes the rest is a context name, which may itself contain slashes.
 */
export function parseInfra(infra: string): Placement {
  const parts = infra.trim().split('/');
  const head = parts[0].toLowerCase();
  if ((KUBERNETES_ALIASES as readonly string[]).includes(head)) {
    const context = parts.slice(1).join('/');
    return context ? { cloud: 'kubernetes', region: context } : { cloud: 'kubernetes' };
  }
  const out: Placement = {};
  if (head !== '*') out.cloud = head;
  if (parts[1] && parts[1] !== '*') out.region = parts[1];
  if (parts[2] && parts[2] !== '*') out.zone = parts[2];
  return out;
}

export function isSkydeckCloud(cloud: string): boolean {
  return (SKYDECK_CLOUDS as readonly string[]).includes(cloud.toLowerCase());
}
