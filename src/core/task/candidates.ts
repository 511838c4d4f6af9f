// The concrete resource choices a launcher tries: any_of / ordered candidates and several
// accelerator options each become one Resources with at most one accelerator.

import { Resources } from './types';

export interface Candidates {
  /** True when the list is in order of preference (try the first one first). */
  ordered: boolean;
  list: Resources[];
}

function perAccelerator(r: Resources): Resources[] {
  const { anyOf: _a, ordered: _o, ...flat } = r;
  if (flat.accelerators.length <= 1) return [{ ...flat, acceleratorsOrdered: false }];
  return flat.accelerators.map((option) => ({ ...flat, accelerators: [option], acceleratorsOrdered: false }));
}

export function resourceCandidates(resources: Resources): Candidates {
  if (resources.ordered && resources.ordered.length > 0) {
    return { ordered: true, list: resources.ordered.flatMap(perAccelerator) };
  }
  if (resources.anyOf && resources.anyOf.length > 0) {
    return { ordered: false, list: resources.anyOf.flatMap(perAccelerator) };
  }
  return { ordered: resources.acceleratorsOrdered, list: perAccelerator(resources) };
}
