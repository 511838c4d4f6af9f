// State of the fake Compute Engine: instances with GCP's real status machine, operations that
// finish later, firewall rules, and the faults a test turns on. Times are short (stepMs per
// transition) so suites stay fast, but nothing changes instantly: callers must poll or wait.
import { randomBytes } from 'node:crypto';
import { type OpError, notFound, poolExhausted, quotaOp } from './bodies';
import { SteppedModel } from '../steppedModel';
import { FakeIam } from './iam';
import { type GceStatus, STOPPED_STATES, bootVia, deleteVia, stopVia } from './lifecycle';

export const API = 'https://www.googleapis.com/compute/v1';

export type Json = Record<string, unknown>;

export interface FakeInstance extends Json {
  name: string;
  status: GceStatus;
  zone: string;
  labels: Record<string, string>;
  machineType: string;
  scheduling: Json;
}

export interface FakeOperation extends Json {
  name: string;
  status: 'PENDING' | 'RUNNING' | 'DONE';
  zone?: string;
  error?: { errors: OpError[] };
}

/** vCPUs per machine type the fake knows; others are "not found in zone". */
export const MACHINE_CPUS: Record<string, number> = {
  'e2-standard-2': 2, 'e2-standard-4': 4, 'e2-standard-8': 8, 'n2-standard-2': 2, 'n2-standard-4': 4, 'n2-standard-8': 8,
  'n1-standard-4': 4, 'n1-standard-8': 8, 'n1-standard-16': 16, 'g2-standard-4': 4, 'a2-highgpu-1g': 12,
  'e2-small': 2, 't2a-standard-1': 1,
};
export const ACCELERATORS = new Set(['nvidia-tesla-t4', 'nvidia-tesla-v100', 'nvidia-l4', 'nvidia-tesla-a100']);
export const IMAGES = new Set(['projects/ubuntu-os-cloud/global/images/family/ubuntu-2204-lts', 'projects/ubuntu-os-cloud/global/images/family/ubuntu-2404-lts-amd64',
  'projects/ubuntu-os-cloud/global/images/family/ubuntu-2204-lts-arm64']);

export class GceModel extends SteppedModel {
  readonly instances = new Map<string, FakeInstance>(); // key zone/name
  readonly operations = new Map<string, FakeOperation>();
  readonly firewalls = new Map<string, Json>();
  /** Zones whose pool is exhausted: inserts and starts there fail as on GCP. */
  readonly exhausted = new Set<string>();
  /** "zone/machineType" pairs a zone does not offer (GPU types live in a few zones only). */
  readonly missingTypes = new Set<string>();
  /** CPUS quota per region (undefined: unlimited). */
  cpuQuota?: number;
  /** One-off HTTP failures for the next matching requests. */
  readonly httpFaults: { method: string; path: RegExp; error: Error; times: number }[] = [];
  /** Every mutating call seen, for assertions ("insert", "stop", ...). */
  readonly calls: { method: string; path: string; body?: Json }[] = [];
  private seq = 0;

  /** The project number GCP puts in default service account emails and metadata zone paths. */
  readonly projectNumber = '412958776301';

  /** Service accounts, custom roles and the project's IAM policy (iam.ts). */
  readonly iam: FakeIam;

  constructor(readonly project: string, readonly zones: string[], stepMs = 30) {
    super(stepMs);
    this.iam = new FakeIam(project, this.projectNumber);
  }

  url(path: string): string {
    return `${API}/projects/${this.project}/${path}`;
  }

  id(): string {
    return `${Date.now()}${String(++this.seq).padStart(6, '0')}`;
  }

  /** A new operation: PENDING, RUNNING after one step, DONE when `finish` resolves it. */
  operation(type: string, target: string, zone: string | undefined): FakeOperation {
    const name = `operation-${Date.now()}-${randomBytes(6).toString('hex')}`;
    const op: FakeOperation = {
      kind: 'compute#operation', id: this.id(), name, operationType: type, targetLink: target, status: 'PENDING',
      user: 'tester@example.iam.gserviceaccount.com', progress: 0, insertTime: new Date().toISOString(),
      selfLink: this.url(zone ? `zones/${zone}/operations/${name}` : `global/operations/${name}`),
      ...(zone ? { zone: this.url(`zones/${zone}`) } : {}),
    };
    this.operations.set(name, op);
    this.later(1, () => {
      if (op.status === 'PENDING') Object.assign(op, { status: 'RUNNING', startTime: new Date().toISOString() });
    });
    return op;
  }

  finish(op: FakeOperation, error?: OpError): void {
    Object.assign(op, { status: 'DONE', progress: 100, endTime: new Date().toISOString() });
    // Operation.httpErrorStatusCode / httpErrorMessage: the HTTP answer the failure stands for.
    const quota = error?.code === 'QUOTA_EXCEEDED';
    if (error) Object.assign(op, { error: { errors: [error] }, httpErrorStatusCode: quota ? 403 : 503, httpErrorMessage: quota ? 'FORBIDDEN' : 'SERVICE UNAVAILABLE' });
  }

  instance(zone: string, name: string): FakeInstance {
    const i = this.instances.get(`${zone}/${name}`);
    if (!i) throw notFound(`projects/${this.project}/zones/${zone}/instances/${name}`);
    return i;
  }

  /** Starts the insert's state machine; capacity and quota fail in the operation, as on GCP. */
  runInsert(i: FakeInstance, op: FakeOperation): void {
    const zone = i.zone;
    const region = zone.replace(/-[a-z]$/, '');
    const used = [...this.instances.values()].filter((x) => x.zone.startsWith(region) && !STOPPED_STATES.includes(x.status))
      .reduce((n, x) => n + (MACHINE_CPUS[x.machineType] ?? 0), 0);
    const want = MACHINE_CPUS[i.machineType] ?? 0;
    if (this.cpuQuota !== undefined && used + want > this.cpuQuota) {
      this.later(1, () => this.finish(op, quotaOp('CPUS', this.cpuQuota!, region)));
      return;
    }
    this.instances.set(`${zone}/${i.name}`, i);
    if (this.exhausted.has(zone)) {
      // The VM shows up PROVISIONING, then vanishes and the operation reports the pool.
      this.later(2, () => {
        this.instances.delete(`${zone}/${i.name}`);
        this.finish(op, poolExhausted(this.project, zone, i.machineType));
      });
      return;
    }
    this.later(2, () => (i.status = 'STAGING'));
    this.later(3, () => this.finish(op));
    this.later(4, () => {
      if (i.status === 'STAGING') i.status = 'RUNNING';
    });
  }

  /** Through STOPPING to TERMINATED (lifecycle.ts: other paths, and what stop does to a halting VM). */
  runStop(i: FakeInstance, op: FakeOperation): void {
    stopVia(this, i, op);
  }

  runStart(i: FakeInstance, op: FakeOperation): void {
    if (i.status !== 'TERMINATED' && i.status !== 'STOPPED') return this.later(1, () => this.finish(op));
    bootVia(this, i, op);
  }

  runDelete(i: FakeInstance, op: FakeOperation): void {
    deleteVia(this, i, op);
  }

  /** Spot preemption: DELETE removes the VM, STOP leaves it TERMINATED. */
  preempt(zone: string, name: string): void {
    const i = this.instance(zone, name);
    i.status = 'STOPPING';
    const action = (i.scheduling.instanceTerminationAction as string | undefined) ?? 'STOP';
    this.later(2, () => {
      if (action === 'DELETE') this.instances.delete(`${zone}/${name}`);
      else i.status = 'TERMINATED';
    });
  }
}
