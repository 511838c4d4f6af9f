import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import YAML from 'yaml';
import { HostSpec, parseHostString } from './hostSpec';

/** A named set of existing machines for the `ssh` cloud. */
export interface SshPool {
  name: string;
  hosts: HostSpec[];
}

export interface PoolsResult {
  pools: SshPool[];
  /** Problems, each naming where it is and how to fix it. */
  errors: string[];
}

export function defaultPoolsFile(): string {
  return path.join(os.homedir(), '.skydeck', 'ssh_pools.yaml');
}

/**
 * Reads pools from the settings object and the pools file (settings win on a name clash).
 * Shape: name → { hosts: [host | user@host:port], user?, port?, identity_file?, proxy_jump? }.
 */
export function loadSshPools(settings: unknown, file = defaultPoolsFile()): PoolsResult {
  const out: PoolsResult = { pools: [], errors: [] };
  const fromFile: Record<string, unknown> = {};
  if (fs.existsSync(file)) {
    try {
      const doc = YAML.parse(fs.readFileSync(file, 'utf8')) ?? {};
      if (typeof doc !== 'object' || Array.isArray(doc)) out.errors.push(`${file}: expected a mapping of pool name → pool`);
      else Object.assign(fromFile, doc);
    } catch (e) {
      out.errors.push(`${file}: not valid YAML: ${(e as Error).message}`);
    }
  }
  const merged: Record<string, [unknown, string]> = {};
  for (const [k, v] of Object.entries(fromFile)) merged[k] = [v, file];
  if (settings && typeof settings === 'object') {
    for (const [k, v] of Object.entries(settings)) merged[k] = [v, 'setting skydeck.sshPools'];
  }
  for (const [name, [raw, where]] of Object.entries(merged)) {
    const pool = parsePool(name, raw, `${where}: pool "${name}"`, out.errors);
    if (pool) out.pools.push(pool);
  }
  return out;
}

function parsePool(name: string, raw: unknown, where: string, errors: string[]): SshPool | undefined {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) {
    errors.push(`${where}: expected {hosts: [...], user: ..., identity_file: ...}`);
    return undefined;
  }
  const p = raw as Record<string, unknown>;
  const known = new Set(['hosts', 'user', 'port', 'identity_file', 'proxy_jump']);
  for (const k of Object.keys(p)) if (!known.has(k)) errors.push(`${where}: unknown key "${k}" (known: ${[...known].join(', ')})`);
  if (!Array.isArray(p.hosts) || p.hosts.length === 0) {
    errors.push(`${where}: "hosts" must be a non-empty list of host, user@host or user@host:port`);
    return undefined;
  }
  const defaults = { user: str(p.user), port: typeof p.port === 'number' ? p.port : undefined };
  const identityFile = str(p.identity_file)?.replace(/^~(?=\/|$)/, os.homedir());
  let proxyJump: HostSpec | undefined;
  if (p.proxy_jump !== undefined) {
    const j = typeof p.proxy_jump === 'string' ? parseHostString(p.proxy_jump, { user: defaults.user }) : 'must be a string';
    if (typeof j === 'string') errors.push(`${where}: proxy_jump ${j}`);
    else proxyJump = { ...j, identityFile };
  }
  const hosts: HostSpec[] = [];
  for (const h of p.hosts) {
    const spec = typeof h === 'string' ? parseHostString(h, defaults) : `hosts entries must be strings, got ${JSON.stringify(h)}`;
    if (typeof spec === 'string') errors.push(`${where}: ${spec}`);
    else hosts.push({ ...spec, identityFile, proxyJump });
  }
  return hosts.length ? { name, hosts } : undefined;
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v ? v : undefined;
}
