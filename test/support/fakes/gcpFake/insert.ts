// instances.insert as GCP validates it: synchronous 4xx for a bad request (name, machine type,
// image, labels, GPUs without TERMINATE), then an Operation that may still fail (pool, quota).
import { alreadyExists, invalid, notFound } from './bodies';
import { ACCELERATORS, IMAGES, MACHINE_CPUS, type FakeInstance, type FakeOperation, type GceModel, type Json } from './model';

const LABEL = /^[a-z0-9_-]{0,63}$/;
let ipSeq = 1;

export function insertInstance(m: GceModel, zone: string, body: Json): FakeOperation {
  const name = String(body.name ?? '');
  if (!/^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$/.test(name)) throw invalid(`Invalid value for field 'resource.name': '${name}'. Must be a match of regex '(?:[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?)'`);
  if (m.instances.has(`${zone}/${name}`)) throw alreadyExists(`projects/${m.project}/zones/${zone}/instances/${name}`);
  const mt = String(body.machineType ?? '');
  const typeName = mt.split('/').pop() ?? '';
  const typeZone = /zones\/([^/]+)\//.exec(mt)?.[1] ?? zone;
  if (!(typeName in MACHINE_CPUS) || typeZone !== zone || m.missingTypes.has(`${zone}/${typeName}`)) {
    throw invalid(`Invalid value for field 'resource.machineType': '${mt}'. Machine type with name '${typeName}' does not exist in zone '${zone}'.`);
  }
  const labels = (body.labels ?? {}) as Record<string, string>;
  for (const [k, v] of Object.entries(labels)) {
    if (!LABEL.test(v) || !/^[a-z][a-z0-9_-]{0,62}$/.test(k)) {
      throw invalid(`Invalid value for field 'resource.labels': ''. Label value '${v}' violates format constraints. The value can only contain lowercase letters, numeric characters, underscores and dashes. The value can be at most 63 characters long. International characters are allowed.`);
    }
  }
  const disks = (body.disks ?? []) as Json[];
  const image = String((disks[0]?.initializeParams as Json | undefined)?.sourceImage ?? '');
  if (!IMAGES.has(image)) throw notFound(image.replace(/^https:\/\/[^/]+\/compute\/v1\//, ''));
  const scheduling = (body.scheduling ?? {}) as Json;
  const accs = (body.guestAccelerators ?? []) as Json[];
  for (const a of accs) {
    const t = String(a.acceleratorType ?? '').split('/').pop() ?? '';
    if (!ACCELERATORS.has(t)) throw invalid(`Invalid value for field 'resource.guestAccelerators[0].acceleratorType': '${a.acceleratorType}'. Accelerator type '${t}' does not exist in zone '${zone}'.`);
  }
  if (accs.length && scheduling.onHostMaintenance !== 'TERMINATE') {
    throw invalid(`Invalid value for field 'resource.scheduling.onHostMaintenance': '${scheduling.onHostMaintenance ?? 'MIGRATE'}'. Instances with guest accelerators do not support live migration.`);
  }
  const serviceAccounts = ((body.serviceAccounts ?? []) as Json[]).map((sa, i) => {
    const scopes = (sa.scopes ?? []) as unknown[];
    if (!scopes.every((x) => typeof x === 'string' && x.startsWith('https://www.googleapis.com/auth/'))) {
      throw invalid(`Invalid value for field 'resource.serviceAccounts[${i}].scopes[0]': '${scopes[0]}'. Scope must be a URL.`);
    }
    // GCP resolves "default" to the project's Compute Engine default service account.
    const email = sa.email === 'default' ? m.iam.defaultAccount : String(sa.email ?? '');
    m.iam.checkAttach(email);
    return { email, scopes };
  });
  const n = ipSeq++;
  const inst: FakeInstance = {
    ...body, kind: 'compute#instance', id: m.id(), name, zone, machineType: typeName, status: 'PROVISIONING', labels,
    labelFingerprint: '42WmSpB8rSM=', creationTimestamp: new Date().toISOString(), scheduling,
    ...(serviceAccounts.length ? { serviceAccounts } : {}),
    networkInterfaces: ((body.networkInterfaces ?? [{}]) as Json[]).map((nic) => ({
      ...nic, kind: 'compute#networkInterface', name: 'nic0', networkIP: `10.128.${n >> 8}.${n & 255}`,
      // TEST-NET-3 (documentation) addresses: nothing answers there, and tests never connect.
      accessConfigs: ((nic.accessConfigs ?? []) as Json[]).map((a) => ({ ...a, kind: 'compute#accessConfig', natIP: `203.0.113.${n & 255}` })),
    })),
    metadata: { kind: 'compute#metadata', fingerprint: 'q1E3ytuh0Bc=', ...((body.metadata ?? {}) as Json) },
    selfLink: m.url(`zones/${zone}/instances/${name}`),
  };
  const op = m.operation('insert', m.url(`zones/${zone}/instances/${name}`), zone);
  m.runInsert(inst, op);
  return op;
}
