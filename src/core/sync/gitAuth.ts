// Credentials for a private git workdir, chosen as SkyPilot documents it (docs "Frequently Asked
// Questions", Git and GitHub): an HTTPS URL uses GIT_TOKEN; an SSH/SCP URL uses the key named by
// GIT_SSH_KEY_PATH, else ~/.ssh/id_rsa, else ~/.ssh/id_ed25519 of this machine. Either value
// reaches the node only on stdin of the clone (see gitScript.ts), never a command line or file
// that outlives it.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { gitUrlOptionLike } from '../task/gitWorkdir';

/** A value for a message: quoted, and cut short when a hostile file made it huge. */
function clip(s: string): string {
  return JSON.stringify(s.length > 200 ? `${s.slice(0, 200)}…` : s);
}

export type GitUrlKind = 'https' | 'ssh' | 'file' | 'git';

export class GitWorkdirError extends Error {
  constructor(readonly kind: 'usage' | 'failed', message: string) {
    super(message);
    this.name = 'GitWorkdirError';
  }
}

/** The transport a URL uses; throws a usage error for what git would misread or store a secret from. */
export function gitUrlKind(url: string): GitUrlKind {
  if (!url || url.startsWith('-') || /[\s\0-\x1f\x7f]/.test(url)) {
    throw new GitWorkdirError('usage', `workdir url ${clip(url)} is not a git URL`);
  }
  const optionLike = gitUrlOptionLike(url);
  if (optionLike) throw new GitWorkdirError('usage', `workdir url ${clip(url)} is not a git URL: it ${optionLike}`);
  const m = /^([a-z][a-z0-9+.-]*):\/\/([^/]*)/i.exec(url);
  if (m) {
    const scheme = m[1].toLowerCase();
    // user:password@, or a token given as the user name (GitHub's gh*_ / github_pat_, GitLab's glpat-).
    if (scheme !== 'file' && m[2].includes('@') && (/^[^@]*:[^@]*@/.test(m[2]) || /^(gh[pousr]_|github_pat_|glpat-)/i.test(m[2]))) {
      throw new GitWorkdirError('usage', 'workdir url carries a password or token; remove it and set GIT_TOKEN instead (it would be stored in the node\'s .git/config)');
    }
    if (scheme === 'https' || scheme === 'http') return 'https';
    if (scheme === 'ssh' || scheme === 'git+ssh') return 'ssh';
    if (scheme === 'file') return 'file';
    if (scheme === 'git') return 'git';
    throw new GitWorkdirError('usage', `workdir url scheme ${scheme}: is not supported; use https://, ssh:// or git@host:path`);
  }
  // scp-like: [user@]host:path; "name::address" is git's remote-helper form (ext:: runs commands).
  if (/^[^/:]+:/.test(url) && !url.includes('::')) return 'ssh';
  throw new GitWorkdirError('usage', `workdir url ${clip(url)} is not a git URL (https://…, ssh://…, git@host:path)`);
}

/** A branch, tag or commit as git accepts it; nothing that reads as an option or a refspec. */
export function checkGitRef(ref: string): void {
  if (!ref || ref.startsWith('-') || /[\s\0-\x1f\x7f:~^?*[\\]|\.\.|@\{/.test(ref) || ref.endsWith('/') || ref.endsWith('.lock')) {
    throw new GitWorkdirError('usage', `workdir ref ${clip(ref)} is not a branch, tag or commit name`);
  }
}

export interface GitCredentials {
  token?: string;
  /** Private key text. */
  sshKey?: string;
  /** Where the key came from, for messages (never the key). */
  sshKeyFrom?: string;
}

/** Task envs/secrets first, then this machine's environment, as SkyPilot reads GIT_TOKEN from it. */
export function gitCredentials(kind: GitUrlKind, envs: Record<string, string | null | undefined>,
  localEnv: NodeJS.ProcessEnv = process.env, home: string = os.homedir()): GitCredentials {
  const pick = (name: string): string | undefined => envs[name] ?? localEnv[name] ?? undefined;
  if (kind === 'https') {
    const token = pick('GIT_TOKEN');
    if (token !== undefined && /[\r\n\0]/.test(token)) throw new GitWorkdirError('usage', 'GIT_TOKEN contains a line break');
    return token ? { token } : {};
  }
  if (kind !== 'ssh') return {};
  const named = pick('GIT_SSH_KEY_PATH');
  const candidates = named
    ? [named.startsWith('~/') ? path.join(home, named.slice(2)) : named]
    : [path.join(home, '.ssh', 'id_rsa'), path.join(home, '.ssh', 'id_ed25519')];
  for (const file of candidates) {
    let text: string;
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch {
      if (named) throw new GitWorkdirError('usage', `GIT_SSH_KEY_PATH names ${file}, which cannot be read`);
      continue;
    }
    return { sshKey: text.endsWith('\n') ? text : `${text}\n`, sshKeyFrom: file };
  }
  return {}; // the node's own keys and ~/.ssh/config apply
}
