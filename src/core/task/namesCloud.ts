import type { Resources } from './types';

/** Whether a task says where to run (cloud or infra, in its resources or any candidate). */
export function namesCloud(r: Resources): boolean {
  const one = (x: Resources) => !!(x.cloud || x.infra);
  return one(r) || (r.anyOf ?? []).some(one) || (r.ordered ?? []).some(one);
}
