// POSIX shell quoting. SSH sends one command string that the remote login shell parses, so
// every argv element is quoted: inside single quotes nothing is special except the quote itself,
// which is closed, emitted escaped, and reopened: it's -> 'it'\''s'.

/** Characters that never need quoting, in any position (no '=', '~', '#', which can be special). */
const SAFE = /^[A-Za-z0-9_\-.,:/@%+]+$/;

export function shellQuote(s: string): string {
  if (s.includes('\0')) throw new Error('shellQuote: a NUL byte cannot be passed through a shell');
  if (s !== '' && SAFE.test(s)) return s;
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

export function quoteArgv(argv: string[]): string {
  if (argv.length === 0) throw new Error('exec: empty argv');
  return argv.map(shellQuote).join(' ');
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Names must be shell identifiers (the SSH transport exports them through the remote shell). */
export function assertEnvNames(env: Record<string, string>): void {
  for (const k of Object.keys(env)) {
    if (!ENV_NAME.test(k)) throw new Error(`exec: invalid environment variable name ${JSON.stringify(k)}`);
    if (env[k].includes('\0')) throw new Error(`exec: environment variable ${k} contains a NUL byte`);
  }
}

/** "cd … && export A='…' && " prefix for the remote shell; empty when there is nothing to set. */
function prelude(opts: { env?: Record<string, string>; cwd?: string }): string {
  const parts: string[] = [];
  if (opts.cwd !== undefined && opts.cwd !== '') parts.push(`cd ${quotePath(opts.cwd)}`);
  const env = Object.entries(opts.env ?? {});
  if (env.length) {
    assertEnvNames(opts.env!);
    parts.push(`export ${env.map(([k, v]) => `${k}=${shellQuote(v)}`).join(' ')}`);
  }
  return parts.length ? `${parts.join(' && ')} && ` : '';
}

/** Quotes a path but keeps a leading "~" or "~/" unquoted so the remote shell expands it. */
export function quotePath(p: string): string {
  if (p === '~') return '~';
  if (p.startsWith('~/')) return p.length === 2 ? '~/' : `~/${shellQuote(p.slice(2))}`;
  return shellQuote(p);
}

/** The command string for exec(argv) over SSH. */
export function buildExecCommand(argv: string[], opts: { env?: Record<string, string>; cwd?: string } = {}): string {
  return prelude(opts) + quoteArgv(argv);
}

/** The command string for execShell(script) over SSH: always POSIX sh, whatever the login shell. */
export function buildShellCommand(script: string, opts: { env?: Record<string, string>; cwd?: string } = {}): string {
  return `${prelude(opts)}/bin/sh -c ${shellQuote(script)}`;
}
