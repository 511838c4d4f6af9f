// State of the fake ARM: resource groups and the resources in them (stored in wire form, with
// "properties"), asynchronous operations polled through Azure-AsyncOperation / Location, and
// VMs with provisioningState + power state moving over time (stepMs per transition).
import { randomUUID } from 'node:crypto';
import { groupNotFound } from './bodies';
import { Identities } from './identity';
import { SteppedModel } from '../steppedModel';

export type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export interface AsyncOp {
  id: string;
  status: 'InProgress' | 'Succeeded' | 'Failed';
  error?: { code: string; message: string };
  startTime: string;
  endTime?: string;
}

/** Cores per size and quota family the fake knows; others are "not a valid size". */
export const SIZES: Record<string, { cores: number; family: string }> = {
  Standard_B1s: { cores: 1, family: 'standardBSFamily' }, Standard_D2s_v5: { cores: 2, family: 'standardDSv5Family' },
  Standard_D4s_v5: { cores: 4, family: 'standardDSv5Family' }, Standard_D8s_v5: { cores: 8, family: 'standardDSv5Family' },
  Standard_NC4as_T4_v3: { cores: 4, family: 'standardNCASv3_T4Family' },
  // The managed-jobs controller's sizes (x64, Arm64).
  Standard_B2s: { cores: 2, family: 'standardBSFamily' }, Standard_B2pls_v2: { cores: 2, family: 'standardBplsv2Family' },
};
export const IMAGES = new Set(['Canonical:0001-com-ubuntu-server-jammy:22_04-lts-gen2', 'Canonical:0001-com-ubuntu-server-jammy:22_04-lts-arm64', 'Canonical:ubuntu-24_04-lts:server']);

export class ArmModel extends SteppedModel {
  /** Lower-cased ARM id → resource (wire form). */
  readonly resources = new Map<string, Json>();
  readonly ops = new Map<string, AsyncOp>();
  /** Locations where allocation fails (create and start end with AllocationFailed). */
  readonly allocationFails = new Set<string>();
  /** "location" or "location/size" with SkuNotAvailable. */
  readonly restricted = new Set<string>();
  /** Regular and spot (LowPriority) core quota per location; undefined: unlimited. */
  coreQuota?: number;
  spotQuota?: number;
  readonly calls: { method: string; path: string; body?: Json }[] = [];
  readonly identities = new Identities();
  private ip = 0;

  constructor(readonly subscription: string, stepMs = 25) {
    super(stepMs);
  }


  nextIp(): number {
    return ++this.ip;
  }

  groupId(rg: string): string {
    return `/subscriptions/${this.subscription}/resourceGroups/${rg}`;
  }

  group(rg: string): Json {
    const g = this.resources.get(this.groupId(rg).toLowerCase());
    if (!g) throw groupNotFound(rg);
    return g;
  }

  get(id: string): Json | undefined {
    return this.resources.get(id.toLowerCase());
  }

  put(r: Json): Json {
    this.resources.set(String(r.id).toLowerCase(), r);
    return r;
  }

  remove(id: string): void {
    this.resources.delete(id.toLowerCase());
  }

  /** Everything whose id starts with `prefix` (a group's content, a VM's children). */
  under(prefix: string): Json[] {
    const p = prefix.toLowerCase();
    return [...this.resources.entries()].filter(([k]) => k.startsWith(p)).map(([, v]) => v);
  }

  /** A new operation finished by `steps` later, running `done` first; `error` makes it Failed. */
  op(steps: number, done: () => void, error?: AsyncOp['error']): AsyncOp {
    const op: AsyncOp = { id: randomUUID(), status: 'InProgress', startTime: new Date().toISOString() };
    this.ops.set(op.id, op);
    this.later(steps, () => {
      done();
      Object.assign(op, { status: error ? 'Failed' : 'Succeeded', endTime: new Date().toISOString(), ...(error ? { error } : {}) });
    });
    return op;
  }

  vms(): Json[] {
    return [...this.resources.values()].filter((r) => r.type === 'Microsoft.Compute/virtualMachines');
  }

  /** Cores in use in a location by priority (deallocated and failed VMs hold none). */
  coresUsed(location: string, spot: boolean): number {
    return this.vms().filter((v) => v.location === location && (v.properties.priority === 'Spot') === spot)
      .filter((v) => !['deallocated', 'deallocating', undefined].includes(v._power))
      .reduce((n, v) => n + (SIZES[v.properties.hardwareProfile?.vmSize]?.cores ?? 0), 0);
  }

  /** Deletes a resource group and all in it: the group shows Deleting, its VMs too, then all vanish. */
  deleteGroup(rg: string): AsyncOp {
    const g = this.group(rg);
    g.properties.provisioningState = 'Deleting';
    const content = this.under(`${this.groupId(rg)}/`);
    for (const r of content) if (r.properties) r.properties.provisioningState = 'Deleting';
    return this.op(4, () => {
      for (const r of this.under(`${this.groupId(rg)}/`)) this.remove(r.id);
      this.remove(g.id);
    });
  }

  /** Spot eviction with the VM's policy: Deallocate keeps it (deallocated), Delete removes it. */
  evict(rg: string, name: string): void {
    const vm = this.get(`${this.groupId(rg)}/providers/Microsoft.Compute/virtualMachines/${name}`)!;
    vm._power = 'deallocating';
    this.later(2, () => {
      if (vm.properties.evictionPolicy === 'Delete') this.remove(vm.id);
      else vm._power = 'deallocated';
    });
  }
}
