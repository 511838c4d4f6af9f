// Which credentials to offer, in OpenSSH's spirit: the cluster's key file (then no default
// keys), the agent, then ~/.ssh/id_ed25519, id_ecdsa, id_rsa. Keys are read here and handed to
// ssh2; they never reach messages or logs, which name only files ("agent" for the agent).
import { promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { utils as sshUtils, type AnyAuthMethod, type AuthHandlerMiddleware, type AuthenticationType, type NextAuthHandler } from 'ssh2';
import { TransportConfigError } from './errors';
import { expandHome } from './homePath';

export interface AuthSource { label: string; attempt: (user: string) => AnyAuth; }
type AnyAuth = AnyAuthMethod;

export interface AuthSettings {
  keyFile?: string;
  passphrase?: string;
  agent?: string | false;
  useDefaultKeys?: boolean;
  sshDir?: string;
}

const DEFAULT_KEYS = ['id_ed25519', 'id_ecdsa', 'id_rsa'];

export function defaultAgent(): string | undefined {
  if (process.env.SSH_AUTH_SOCK) return process.env.SSH_AUTH_SOCK;
  if (process.platform === 'win32') return '\\\\.\\pipe\\openssh-ssh-agent';
  return undefined;
}


/** Loads the sources; `notes` collects why a key was skipped (encrypted, unreadable…). */
export async function loadAuthSources(host: string, s: AuthSettings, notes: string[]): Promise<AuthSource[]> {
  const sources: AuthSource[] = [];
  if (s.keyFile) {
    const file = expandHome(s.keyFile);
    let data: Buffer;
    try {
      data = await fsp.readFile(file);
    } catch (e) {
      throw new TransportConfigError(host, `cannot read the key file ${file} (${(e as NodeJS.ErrnoException).code ?? 'error'})`);
    }
    const parsed = sshUtils.parseKey(data, s.passphrase);
    if (parsed instanceof Error) {
      throw new TransportConfigError(host, `the key file ${file} is not a usable private key: ${parsed.message}`);
    }
    sources.push(keySource(file, data, s.passphrase));
  }
  const agent = s.agent === false ? undefined : (s.agent ?? defaultAgent());
  if (agent) sources.push({ label: 'ssh-agent', attempt: (username) => ({ type: 'agent', username, agent }) });
  if (s.useDefaultKeys ?? !s.keyFile) {
    const dir = expandHome(s.sshDir ?? path.join(os.homedir(), '.ssh'));
    for (const name of DEFAULT_KEYS) {
      const file = path.join(dir, name);
      let data: Buffer;
      try { data = await fsp.readFile(file); } catch { continue; }
      const parsed = sshUtils.parseKey(data, s.passphrase);
      if (parsed instanceof Error) { notes.push(`${file} skipped: ${/encrypt/i.test(parsed.message) ? 'encrypted' : 'not a usable key'}`); continue; }
      sources.push(keySource(file, data, s.passphrase));
    }
  }
  return sources;
}

function keySource(file: string, key: Buffer, passphrase?: string): AuthSource {
  return { label: file, attempt: (username) => ({ type: 'publickey', username, key, passphrase }) };
}

/** ssh2 authHandler that offers each source once, recording what was tried. */
export function authHandler(user: string, sources: AuthSource[], tried: string[]): AuthHandlerMiddleware {
  let next = 0;
  return (methodsLeft: AuthenticationType[] | null, _partial: boolean | null, callback: NextAuthHandler) => {
    while (next < sources.length) {
      const src = sources[next++];
      const attempt = src.attempt(user);
      const method = attempt.type === 'agent' ? 'publickey' : attempt.type;
      if (methodsLeft && !methodsLeft.includes(method as AuthenticationType)) continue;
      tried.push(src.label);
      callback(attempt);
      return;
    }
    callback(false as never); // ssh2: false = nothing left, fail with an auth error
  };
}
