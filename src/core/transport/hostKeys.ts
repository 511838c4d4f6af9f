// known_hosts: parsing (plain, wildcard, negated, hashed |1|salt|hash, [host]:port), checking a
// presented host key, recording accepted keys, and the verifier policy used by the SSH transport.
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { HostKeyChangedError, HostKeyRejectedError, type HostKeyMismatch } from './errors';

export interface KnownHostEntry {
  marker?: '@cert-authority' | '@revoked';
  /** The host field as written: comma-separated patterns, or one hashed name. */
  hosts: string;
  keyType: string;
  key: Buffer;
  file: string;
  line: number;
}

/** The name OpenSSH looks up: "host" on port 22, "[host]:port" otherwise. */
export function knownHostsName(host: string, port = 22): string {
  const h = host.toLowerCase();
  return port === 22 ? h : `[${h}]:${port}`;
}

/** "SHA256:<base64 without padding>", as `ssh-keygen -l` and OpenSSH's prompts print it. */
export function fingerprint(keyBlob: Buffer): string {
  return `SHA256:${createHash('sha256').update(keyBlob).digest('base64').replace(/=+$/, '')}`;
}

/** The key type at the start of an SSH wire-format public key blob, e.g. "ssh-ed25519". */
export function keyTypeOf(keyBlob: Buffer): string {
  if (keyBlob.length < 4) return 'unknown';
  const len = keyBlob.readUInt32BE(0);
  if (len > 64 || 4 + len > keyBlob.length) return 'unknown';
  return keyBlob.subarray(4, 4 + len).toString('latin1');
}

export function parseKnownHosts(text: string, file: string): KnownHostEntry[] {
  const entries: KnownHostEntry[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i].trim();
    if (!raw || raw.startsWith('#')) continue;
    const fields = raw.split(/\s+/);
    let marker: KnownHostEntry['marker'];
    if (fields[0] === '@cert-authority' || fields[0] === '@revoked') marker = fields.shift() as KnownHostEntry['marker'];
    else if (fields[0].startsWith('@')) continue; // unknown marker: ignore the line, as OpenSSH does
    if (fields.length < 3) continue;
    const [hosts, keyType, b64] = fields;
    if (!/^[A-Za-z0-9+/]+=*$/.test(b64)) continue;
    const key = Buffer.from(b64, 'base64');
    if (keyTypeOf(key) !== keyType) continue; // malformed or mismatched: skip like OpenSSH
    entries.push({ marker, hosts, keyType, key, file, line: i + 1 });
  }
  return entries;
}

/** Files that do not exist count as empty; unreadable ones too (a warning is the caller's job). */
export async function loadKnownHosts(files: string[]): Promise<KnownHostEntry[]> {
  const all: KnownHostEntry[] = [];
  for (const file of files) {
    let text: string;
    try { text = await fsp.readFile(file, 'utf8'); } catch { continue; }
    all.push(...parseKnownHosts(text, file));
  }
  return all;
}

function globToRegExp(pattern: string): RegExp {
  const body = pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
  return new RegExp(`^${body}$`, 'i');
}

function hashedMatches(field: string, name: string): boolean {
  const parts = field.split('|'); // "", "1", salt, hash
  if (parts.length !== 4 || parts[1] !== '1') return false;
  const salt = Buffer.from(parts[2], 'base64');
  const want = Buffer.from(parts[3], 'base64');
  const got = createHmac('sha1', salt).update(name).digest();
  return got.length === want.length && got.equals(want);
}

/** Does the entry's host field match the lookup name ("host" or "[host]:port")? */
export function entryMatches(entry: KnownHostEntry, name: string): boolean {
  if (entry.hosts.startsWith('|')) return hashedMatches(entry.hosts, name);
  let positive = false;
  for (const pat of entry.hosts.split(',')) {
    if (!pat) continue;
    const negated = pat.startsWith('!');
    const re = globToRegExp(negated ? pat.slice(1) : pat);
    if (re.test(name)) {
      if (negated) return false;
      positive = true;
    }
  }
  return positive;
}

export type HostKeyCheck =
  | { status: 'known'; entry: KnownHostEntry }
  | { status: 'unknown' }
  | { status: 'changed'; expected: KnownHostEntry[] }
  | { status: 'revoked'; entry: KnownHostEntry };

/**
 * OpenSSH's rule: the same key for this name is known; another key of the same type is a change;
 * keys of other types only, or none, leave it unknown.
 */
export function checkHostKey(entries: KnownHostEntry[], host: string, port: number, keyBlob: Buffer): HostKeyCheck {
  const name = knownHostsName(host, port);
  const type = keyTypeOf(keyBlob);
  const revoked = entries.find((e) => e.marker === '@revoked' && e.key.equals(keyBlob) && entryMatches(e, name));
  if (revoked) return { status: 'revoked', entry: revoked };
  const matching = entries.filter((e) => !e.marker && entryMatches(e, name));
  const same = matching.find((e) => e.key.equals(keyBlob));
  if (same) return { status: 'known', entry: same };
  const changed = matching.filter((e) => e.keyType === type);
  if (changed.length) return { status: 'changed', expected: changed };
  return { status: 'unknown' };
}

const ALGS_FOR_TYPE: Record<string, string[]> = {
  'ssh-ed25519': ['ssh-ed25519'],
  'ecdsa-sha2-nistp256': ['ecdsa-sha2-nistp256'],
  'ecdsa-sha2-nistp384': ['ecdsa-sha2-nistp384'],
  'ecdsa-sha2-nistp521': ['ecdsa-sha2-nistp521'],
  'ssh-rsa': ['rsa-sha2-512', 'rsa-sha2-256', 'ssh-rsa'],
};

/**
 * Host key algorithms to ask for first: those of keys already known for the host, as OpenSSH
 * does, so a host known by its RSA key is not reported as unknown because ed25519 was negotiated.
 */
export function preferredHostKeyAlgorithms(entries: KnownHostEntry[], host: string, port: number): string[] {
  const name = knownHostsName(host, port);
  const algs: string[] = [];
  for (const e of entries) {
    if (e.marker || !entryMatches(e, name)) continue;
    for (const a of ALGS_FOR_TYPE[e.keyType] ?? []) if (!algs.includes(a)) algs.push(a);
  }
  return algs;
}

export function knownHostsLine(host: string, port: number, keyBlob: Buffer): string {
  return `${knownHostsName(host, port)} ${keyTypeOf(keyBlob)} ${keyBlob.toString('base64')}`;
}

/** Appends the key for host:port to `file` (created 0600 with its directory) unless present. */
export async function recordHostKey(file: string, host: string, port: number, keyBlob: Buffer): Promise<void> {
  await fsp.mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  const existing = await loadKnownHosts([file]);
  const name = knownHostsName(host, port);
  if (existing.some((e) => !e.marker && e.key.equals(keyBlob) && entryMatches(e, name))) return;
  let prefix = '';
  try {
    const text = await fsp.readFile(file, 'utf8');
    if (text.length && !text.endsWith('\n')) prefix = '\n';
  } catch { /* new file */ }
  await fsp.appendFile(file, `${prefix}${knownHostsLine(host, port, keyBlob)}\n`, { mode: 0o600 });
}

/**
 * Removes every key recorded for host:port from `file` (e.g. when Skydeck tears down a machine
 * whose address a new one may reuse). Returns how many lines were removed.
 */
export async function forgetHostKey(file: string, host: string, port = 22): Promise<number> {
  let text: string;
  try { text = await fsp.readFile(file, 'utf8'); } catch { return 0; }
  const name = knownHostsName(host, port);
  const drop = new Set(parseKnownHosts(text, file).filter((e) => !e.marker && entryMatches(e, name)).map((e) => e.line));
  if (!drop.size) return 0;
  const kept = text.split('\n').filter((_, i) => !drop.has(i + 1));
  const tmp = `${file}.${randomBytes(4).toString('hex')}.tmp`;
  await fsp.writeFile(tmp, kept.join('\n'), { mode: 0o600 });
  await fsp.rename(tmp, file);
  return drop.size;
}

/** A hashed host field as `ssh-keygen -H` writes it (used by tests and for users who want it). */
export function hashHostName(name: string, salt = randomBytes(20)): string {
  return `|1|${salt.toString('base64')}|${createHmac('sha1', salt).update(name).digest('base64')}`;
}

export interface HostKeyPolicy {
  /** Read-only files (the user's ~/.ssh/known_hosts). */
  userKnownHostsFiles: string[];
  /** Skydeck's own file: read, and where accepted keys go. */
  knownHostsFile?: string;
  trustOnFirstUse?: boolean;
  onUnknownHostKey?(host: string, fingerprint: string, keyType: string): Promise<boolean>;
}

/** "host" on port 22, "host:port" otherwise: how hosts are named in messages and prompts. */
export function displayHost(host: string, port: number): string {
  return port === 22 ? host : `${host}:${port}`;
}

/** Applies the policy to a presented key: resolves when it may be used, throws a typed error if not. */
export async function verifyHostKey(policy: HostKeyPolicy, host: string, port: number, keyBlob: Buffer): Promise<void> {
  const files = [...policy.userKnownHostsFiles, ...(policy.knownHostsFile ? [policy.knownHostsFile] : [])];
  const entries = await loadKnownHosts(files);
  const check = checkHostKey(entries, host, port, keyBlob);
  const shown = displayHost(host, port);
  const fp = fingerprint(keyBlob);
  const type = keyTypeOf(keyBlob);
  switch (check.status) {
    case 'known':
      return;
    case 'revoked':
      throw new HostKeyRejectedError(shown, fp, type, `it is marked @revoked in ${check.entry.file} line ${check.entry.line}`);
    case 'changed': {
      const expected: HostKeyMismatch[] = check.expected.map((e) => ({
        fingerprint: fingerprint(e.key), keyType: e.keyType, file: e.file, line: e.line,
      }));
      throw new HostKeyChangedError(shown, fp, type, expected);
    }
    case 'unknown': {
      let accepted: boolean;
      if (policy.trustOnFirstUse) accepted = true;
      else if (policy.onUnknownHostKey) accepted = await policy.onUnknownHostKey(shown, fp, type);
      else throw new HostKeyRejectedError(shown, fp, type, 'no known_hosts entry, and nobody was asked');
      if (!accepted) throw new HostKeyRejectedError(shown, fp, type, 'it was rejected');
      if (policy.knownHostsFile) await recordHostKey(policy.knownHostsFile, host, port, keyBlob);
      return;
    }
  }
}
