import assert from 'node:assert/strict';
import { getCluster, listEvents, type ClusterRecord } from '../../../src/core/state';
import { provision, type ProvisionRequest, type ProvisionResult } from '../../../src/core/provision';
import type { Placement } from '../../../src/core/clouds/provider';
import { falseClaims, leaks, noBootstrap, type Harness } from '../../support/fakeCloud/harness';

export const zone = (z: string): Placement => ({ cloud: 'fake', region: 'r1', zone: z, useSpot: false });

export function launch(h: Harness, name: string, more: Partial<ProvisionRequest> = {}): Promise<ProvisionResult> {
  return provision(h.env, { name, numNodes: 1, placements: [zone('r1a')], bootstrap: noBootstrap, ...more });
}

export function row(h: Harness, name: string): Promise<ClusterRecord | undefined> {
  return h.store.read((db) => getCluster(db, name));
}

export function events(h: Harness, name: string): Promise<string[]> {
  return h.store.read((db) => listEvents(db, name).map((e) => e.kind).reverse());
}

/** The two leak invariants hold. */
export async function assertNoLeaks(h: Harness): Promise<void> {
  assert.deepEqual(await leaks(h), [], 'every live tagged instance is owned by a row');
  assert.deepEqual(await falseClaims(h), [], 'no row claims instances that are gone');
}
