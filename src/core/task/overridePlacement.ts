// `--infra`, `--region`, `--zone` on a task's resources. A task writes its placement either as
// `infra: cloud/region/zone` or as separate cloud/region/zone keys (never both, resources.ts);
// an override keeps whichever form the mapping uses, so the result parses like a file would.

import type { Dict } from './objects';
import { KUBERNETES_ALIASES } from './names';

export interface PlacementOverride {
  infra?: string;
  region?: string;
  zone?: string;
}

const PLACEMENT_KEYS = ['infra', 'cloud', 'region', 'zone'];

/** Writes the placement override into the base resources and into each candidate that names one. */
export function placeIn(res: Dict, items: Dict[], o: PlacementOverride): void {
  if (o.infra === undefined && o.region === undefined && o.zone === undefined) return;
  if (o.infra !== undefined) {
    // --infra replaces the whole placement, everywhere (sky: one infra for every candidate).
    for (const d of [res, ...items]) for (const k of PLACEMENT_KEYS) delete d[k];
    res.infra = o.infra;
  }
  const targets = [res, ...items.filter((it) => PLACEMENT_KEYS.some((k) => k in it))];
  for (const d of targets) {
    if (typeof d.infra === 'string') d.infra = infraWith(d.infra, o);
    else {
      if (o.region !== undefined) {
        d.region = o.region;
        if (o.zone === undefined) delete d.zone; // a zone of another region would not exist
      }
      if (o.zone !== undefined) d.zone = o.zone;
    }
  }
}

/** `aws/us-east-1/us-east-1a` with a new region and/or zone; `*` fills the parts left open. */
function infraWith(infra: string, o: PlacementOverride): string {
  const parts = infra.split('/');
  // Kubernetes: the rest is a context name, which has no region or zone to replace.
  if ((KUBERNETES_ALIASES as readonly string[]).includes(parts[0].toLowerCase())) return infra;
  if (o.region !== undefined) {
    parts[1] = o.region;
    if (o.zone === undefined) parts.length = 2;
  }
  if (o.zone !== undefined) {
    parts[1] ??= '*';
    parts[2] = o.zone;
  }
  return parts.map((p) => p || '*').join('/');
}
