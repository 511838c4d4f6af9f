import * as path from 'node:path';
import { clusterNameProblem, printable } from './clusterName';
import { bucketAccessProblem } from './bucketAccessCheck';

// Every cluster row is checked when it is read: the state file lives in the workspace, and a
// cloned repository can ship one. A row that fails is refused (never acted on): its uid goes
// into cloud queries, its name into paths and ssh_config lines, its handle decides where the
// agent runs. The checks describe what Skydeck itself writes, nothing looser.

export const UID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** Providers a row may name; "fake" is the test cloud (it acts only where a test registers it). */
export const KNOWN_PROVIDERS = ['local', 'ssh', 'aws', 'gcp', 'azure', 'kubernetes', 'fake'] as const;
const STATUSES = ['INIT', 'UP', 'STOPPED'];
const FLAG_VALUES = ['terminating', 'termination-unconfirmed', 'stopping', 'stop-unconfirmed', 'down-unconfirmed'];
const PLACE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/; // regions, zones, pool names
const ADDRESS = /^[A-Za-z0-9._:-]{1,253}$/; // host names, IPv4, IPv6 (no brackets)
const USER = /^[A-Za-z0-9._][A-Za-z0-9._@-]{0,63}$/;
const INSTANCE_ID = /^[A-Za-z0-9._-]{1,128}$/;
const MACHINE = /^[0-9a-f]{32}$/;
const MAX_TIME = 1e14; // ms: year 5138; a bigger stamp is not one Skydeck wrote
const MAX_TEXT = 64 * 1024;

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const isInt = (v: unknown, lo: number, hi: number) => typeof v === 'number' && Number.isInteger(v) && v >= lo && v <= hi;
// eslint-disable-next-line no-control-regex
const plainText = (v: unknown, max: number) => typeof v === 'string' && v.length <= max && !/[\u0000-\u001f\u007f]/.test(v);

/** The agent base dir Skydeck derives for a cluster on this machine, relative to its workspace. */
export function localBaseSuffix(name: string): string {
  return path.join('.skydeck', 'local', name);
}

/** Why the row cannot be trusted, or undefined when it has exactly the shape Skydeck writes. */
export function clusterRowProblem(row: Obj): string | undefined {
  const nameProblem = clusterNameProblem(row.name);
  if (nameProblem) return nameProblem;
  const name = row.name as string;
  if (typeof row.uid !== 'string' || !UID.test(row.uid)) return `uid ${printable(row.uid)} is not a Skydeck cluster uid`;
  if (!(KNOWN_PROVIDERS as readonly unknown[]).includes(row.provider)) return `provider ${printable(row.provider)} is not one Skydeck knows`;
  for (const k of ['region', 'zone'] as const) {
    // An ssh cluster's region is its pool's name, which the user chose freely.
    const ok = row.provider === 'ssh' && k === 'region' ? plainText(row[k], 128) : typeof row[k] === 'string' && PLACE.test(row[k] as string);
    if (row[k] !== null && !ok) return `${k} ${printable(row[k])} is not valid`;
  }
  if (!STATUSES.includes(row.status as string)) return `status ${printable(row.status)} is not valid`;
  if (!isInt(row.num_nodes, 1, 1000)) return `num_nodes ${printable(row.num_nodes)} is out of range (1-1000)`;
  if (row.head_address !== null && !(typeof row.head_address === 'string' && ADDRESS.test(row.head_address))) return `head_address ${printable(row.head_address)} is not a host`;
  if (row.ssh_user !== null && !(typeof row.ssh_user === 'string' && USER.test(row.ssh_user))) return `ssh_user ${printable(row.ssh_user)} is not valid`;
  if (row.ssh_port !== null && !isInt(row.ssh_port, 1, 65535)) return `ssh_port ${printable(row.ssh_port)} is out of range (1-65535)`;
  if (row.ssh_key_path !== null && !plainText(row.ssh_key_path, 4096)) return 'ssh_key_path is not a plain path';
  for (const k of ['launched_at', 'updated_at'] as const) if (!isInt(row[k], 0, MAX_TIME)) return `${k} ${printable(row[k])} is out of range`;
  if (row.autostop_minutes !== null && !isInt(row.autostop_minutes, 0, 10 * 366 * 24 * 60)) return `autostop_minutes ${printable(row.autostop_minutes)} is out of range`;
  if (row.autostop_down !== 0 && row.autostop_down !== 1) return `autostop_down ${printable(row.autostop_down)} is not 0 or 1`;
  if (row.flags !== null && !FLAG_VALUES.includes(row.flags as string)) return `flags ${printable(row.flags)} is not a value Skydeck writes`;
  for (const k of ['resources', 'last_error'] as const) {
    if (row[k] !== null && !(typeof row[k] === 'string' && (row[k] as string).length <= MAX_TEXT)) return `${k} is not text of at most ${MAX_TEXT} characters`;
  }
  if (row.created_by_user !== null && row.created_by_user !== undefined && !plainText(row.created_by_user, 64)) return 'created_by_user is not a user name';
  if (row.created_by_machine !== null && row.created_by_machine !== undefined && !(typeof row.created_by_machine === 'string' && MACHINE.test(row.created_by_machine))) {
    return 'created_by_machine is not a Skydeck machine id';
  }
  // Local and ssh rows get their handle with the intent; a provider row once its run is recorded.
  if (row.handle === null) return row.provider === 'local' || row.provider === 'ssh' ? 'handle is missing' : undefined;
  if (typeof row.handle !== 'string' || row.handle.length > MAX_TEXT) return 'handle is not JSON text';
  let handle: unknown;
  try {
    handle = JSON.parse(row.handle);
  } catch {
    return 'handle is not valid JSON';
  }
  const hp = handleProblem(handle, row.provider as string, name, row.num_nodes as number);
  return hp ? `handle: ${hp}` : undefined;
}

function handleProblem(h: unknown, provider: string, name: string, numNodes: number): string | undefined {
  if (!isObj(h)) return 'not an object';
  if (!Array.isArray(h.hosts) || h.hosts.length > numNodes) return 'hosts is not a list of at most num_nodes hosts';
  for (const host of h.hosts) {
    const p = hostProblem(host, true);
    if (p) return p;
  }
  if (h.workdir !== undefined && !plainText(h.workdir, 4096)) return 'workdir is not a plain path';
  if (h.local !== undefined && h.local !== true) return 'local is not true';
  const onThisMachine = provider === 'local' || h.local === true;
  if (onThisMachine) {
    // Where the agent runs on this machine: only the directory Skydeck derives for this name.
    // (Ops compare it with the exact path under the open workspace before connecting.)
    if (h.hosts.length) return 'a cluster on this machine has no hosts';
    if (typeof h.base !== 'string' || !path.isAbsolute(h.base) || path.normalize(h.base) !== h.base || !h.base.endsWith(path.sep + localBaseSuffix(name))) {
      return `base ${printable(h.base)} is not the directory Skydeck uses for ${name} (<workspace>/${localBaseSuffix(name)})`;
    }
  } else if (h.base !== undefined) {
    return 'base is set (Skydeck uses the node\'s ~/.skydeck)';
  }
  if (h.kube !== undefined) {
    const kp = kubeProblem(h.kube, provider, numNodes);
    if (kp) return kp;
  }
  if (h.pool !== undefined && !plainText(h.pool, 128)) return 'pool is not a pool name';
  if (provider === 'ssh' && h.pool === undefined) return 'an ssh cluster names no pool';
  if (provider === 'local' || provider === 'ssh') return undefined;
  // Provider clusters: the provision loop's bookkeeping (provision/handle.ts).
  if (h.instanceIds !== undefined && !(Array.isArray(h.instanceIds) && h.instanceIds.length <= 10_000 && h.instanceIds.every((i) => typeof i === 'string' && INSTANCE_ID.test(i)))) {
    return 'instanceIds is not a list of instance ids';
  }
  if (h.headId !== undefined && !(typeof h.headId === 'string' && INSTANCE_ID.test(h.headId))) return 'headId is not an instance id';
  for (const k of ['lastRunAt', 'runAnsweredAt']) if (h[k] !== undefined && !isInt(h[k], 0, MAX_TIME)) return `${k} is out of range`;
  if (h.attempt !== undefined && !isInt(h.attempt, 0, 1e9)) return 'attempt is out of range';
  if (h.runInFlight !== undefined && typeof h.runInFlight !== 'boolean') return 'runInFlight is not a boolean';
  if (h.placement !== undefined) {
    const pl = h.placement;
    if (!isObj(pl) || pl.cloud !== provider) return 'placement is not one of this cluster\'s cloud';
    for (const k of ['region', 'zone', 'instanceType']) if (pl[k] !== undefined && !(typeof pl[k] === 'string' && PLACE.test(pl[k] as string))) return `placement.${k} is not valid`;
    if (pl.useSpot !== undefined && typeof pl.useSpot !== 'boolean') return 'placement.useSpot is not a boolean';
    const buckets = bucketAccessProblem(pl.bucketAccess);
    if (buckets) return buckets;
  }
  return undefined;
}

function hostProblem(h: unknown, allowJump: boolean): string | undefined {
  if (!isObj(h)) return 'a host is not an object';
  if (typeof h.address !== 'string' || !ADDRESS.test(h.address)) return `host address ${printable(h.address)} is not valid`;
  if (!isInt(h.port, 1, 65535)) return `host port ${printable(h.port)} is out of range (1-65535)`;
  if (typeof h.user !== 'string' || !USER.test(h.user)) return `host user ${printable(h.user)} is not valid`;
  if (h.identityFile !== undefined && !plainText(h.identityFile, 4096)) return 'host identityFile is not a plain path';
  if (h.proxyJump !== undefined) {
    if (!allowJump) return 'a jump host has its own jump host';
    return hostProblem(h.proxyJump, false);
  }
  return undefined;
}

/** A DNS-1123 name (namespace, pod, container) as Kubernetes allows them. */
const KUBE_NAME = /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/;

function kubeProblem(k: unknown, provider: string, numNodes: number): string | undefined {
  if (provider !== 'kubernetes') return 'kube is set on a cluster that is not on kubernetes';
  if (!isObj(k)) return 'kube is not an object';
  if (!plainText(k.context, 253)) return 'kube.context is not a context name';
  for (const f of ['namespace', 'container'] as const) if (typeof k[f] !== 'string' || !KUBE_NAME.test(k[f] as string)) return `kube.${f} is not a Kubernetes name`;
  if (!Array.isArray(k.pods) || !k.pods.length || k.pods.length > numNodes || !k.pods.every((p) => typeof p === 'string' && KUBE_NAME.test(p))) return 'kube.pods is not a list of pod names';
  // The head sends its pod's token there (multi-node): only an https URL, as the kubeconfig's.
  if (k.server !== undefined && !(typeof k.server === 'string' && k.server.length <= 2048 && /^https:\/\/[^\s'"\\]+$/.test(k.server))) return 'kube.server is not an https URL';
  return undefined;
}
