import { resourceCandidates } from '../task/candidates';
import type { Resources } from '../task/types';
import { parseInfra } from '../task/infra';
import type { NodeShape, Placement, Provider } from '../clouds/provider';

/**
 * The placements a launch tries, in order: the task's any_of / ordered / accelerator choices
 * (task/candidates.ts), each with its cloud, region, zone and spot choice; `cloudOverride`
 * (--cloud) replaces the cloud of every candidate.
 */
export function placementsOf(resources: Resources, cloudOverride?: string): Placement[] {
  const out: Placement[] = [];
  for (const r of resourceCandidates(resources).list) {
    const infra = r.infra ? parseInfra(r.infra) : {};
    const cloud = (cloudOverride ?? r.cloud ?? infra.cloud ?? '').toLowerCase();
    const p: Placement = { cloud, useSpot: r.useSpot };
    const region = r.region ?? infra.region;
    const zone = r.zone ?? infra.zone;
    if (region) p.region = region;
    if (zone) p.zone = zone;
    if (r.instanceType) p.instanceType = r.instanceType;
    const shape = nodeShape(r);
    if (shape) p.resources = shape;
    if (!out.some((o) => samePlacement(o, p))) out.push(p);
  }
  return out;
}

/** A region without a zone becomes one placement per zone the provider offers there. */
export function expandZones(provider: Provider, placements: Placement[]): Placement[] {
  return placements.flatMap((p) => {
    if (p.zone || !p.region || !provider.zonesOf) return [p];
    const zones = provider.zonesOf(p.region);
    return zones.length ? zones.map((zone) => ({ ...p, zone })) : [p];
  });
}

export function describePlacement(p: Placement): string {
  return [p.cloud, p.region, p.zone].filter(Boolean).join('/') + (p.instanceType ? ` ${p.instanceType}` : '') + (p.useSpot ? ' (spot)' : '');
}

function samePlacement(a: Placement, b: Placement): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** The parts of a candidate the cloud needs to pick and build a node; undefined when none. */
function nodeShape(r: Resources): NodeShape | undefined {
  const shape: NodeShape = {};
  if (r.cpus !== undefined) shape.cpus = r.cpus;
  if (r.memory !== undefined) shape.memory = r.memory;
  if (r.accelerators.length) shape.accelerators = r.accelerators;
  if (r.diskSize !== undefined) shape.diskSize = r.diskSize;
  if (r.imageId !== undefined) shape.imageId = r.imageId;
  return Object.keys(shape).length ? shape : undefined;
}
