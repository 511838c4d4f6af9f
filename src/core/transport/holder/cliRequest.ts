// A whole CLI run handed to the holder's warm worker (the thin CLI's fast path, src/cli/thin.ts).
// One run per socket connection, after which the socket belongs to the worker:
//   thin → holder   cli {argv, cwd, env, umask, tty, build}   what the CLI process would have had
//   worker → thin   fallback {why}                            nothing ran: run the full CLI here
//   worker → thin   started {pid}                             the run is under way; never rerun now
//   worker → thin   out {d} / err {d}                         the CLI's stdout / stderr (base64)
//   worker → thin   rerun                                     stopped before anything was submitted
//                                                             because it needs this terminal (a prompt)
//   worker → thin   exit {code}                               the CLI's exit code
//   thin → worker   sig                                       Ctrl-C, handled as the CLI's own SIGINT
// Closing the socket after `started` is a Ctrl-C too.
// A `warm` frame (same fields as `cli`, nothing runs, the holder just closes the socket) says
// what the next run will likely look like: a full CLI run sends it at its end, so the holder's
// spare worker opens that cluster's agent channel before the user's next command (worker.ts).
import * as fs from 'node:fs';
import type { Frame } from './frames';

export interface CliRequest extends Frame {
  t: 'cli' | 'warm';
  argv: string[];
  cwd: string;
  /** The caller's whole environment: the worker runs with exactly this one. */
  env: Record<string, string>;
  umask: number;
  /** Which of the caller's stdin/stdout/stderr are terminals. */
  tty: { stdin: boolean; stdout: boolean; stderr: boolean };
  /** buildId() of the full CLI bundle the caller would load: a worker of another build refuses. */
  build: string;
}

/** Verbs the fast path takes; anything else runs in the caller's own full CLI. */
export const FAST_VERBS = new Set(['exec']);

/** The bundle's identity as the file system sees it now (rebuilt or replaced → different). */
export function buildId(file: string): string {
  const st = fs.statSync(file);
  return `${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}`;
}

const str = (v: unknown, max = 64 * 1024): v is string => typeof v === 'string' && v.length < max && !v.includes('\0');

/** This process's run as a request (the thin entry's, or a full run's `warm` hint). */
export function cliRequestOf(t: 'cli' | 'warm', argv: string[], build: string): CliRequest {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  return {
    t, argv, cwd: process.cwd(), env, umask: process.umask(),
    tty: { stdin: !!process.stdin.isTTY, stdout: !!process.stdout.isTTY, stderr: !!process.stderr.isTTY },
    build,
  };
}

/** The request, or what is wrong with it. */
export function checkCliRequest(f: Frame, t: 'cli' | 'warm' = 'cli'): CliRequest | string {
  if (f.t !== t) return `not a ${t} request`;
  if (!Array.isArray(f.argv) || !f.argv.length || f.argv.length > 1000 || !f.argv.every((a) => str(a))) return 'argv: not a list of strings';
  if (!str(f.cwd) || !f.cwd.startsWith('/')) return 'cwd: not an absolute path';
  const env = f.env as Record<string, unknown> | undefined;
  if (!env || typeof env !== 'object' || Array.isArray(env)) return 'env: not a mapping';
  for (const [k, v] of Object.entries(env)) if (!str(k, 4096) || !k.length || k.includes('=') || !str(v)) return 'env: a name or value is not a string';
  if (!Number.isInteger(f.umask) || (f.umask as number) < 0 || (f.umask as number) > 0o777) return 'umask: not a mode';
  const tty = f.tty as Record<string, unknown> | undefined;
  if (!tty || !['stdin', 'stdout', 'stderr'].every((k) => typeof tty[k] === 'boolean')) return 'tty: not three booleans';
  if (!str(f.build, 200)) return 'build: not a string';
  return f as CliRequest;
}
