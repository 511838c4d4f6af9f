// Runs a storage command on a node with the rclone remote's configuration in its environment.
// The values travel on stdin and are exported by the node's shell: they never appear on a
// command line (visible to every user in `ps`), in the SSH exec request, or in a log.
import type { ExecResult, Transport } from '../transport';
import { AbortedError } from '../transport/errors';
import { assertEnvNames } from '../transport/shellQuote';

// Reads NAME=value lines up to an empty line. rclone 1.60's S3 client fails outright when
// AWS_CA_BUNDLE is set ("unable to load custom CA bundle"), so a bundle the node configures
// for AWS is handed to rclone's own --ca-cert instead. RCLONE_CONFIG=/dev/null: no config file
// is read or written; the remote comes from the environment alone.
const PRELUDE = [
  'while IFS= read -r kv; do [ -n "$kv" ] || break; export "$kv"; done',
  'if [ -n "${AWS_CA_BUNDLE:-}" ]; then [ -n "${RCLONE_CA_CERT:-}" ] || export RCLONE_CA_CERT="$AWS_CA_BUNDLE"; unset AWS_CA_BUNDLE; fi',
  'export RCLONE_CONFIG=/dev/null',
].join('\n');

export interface RunOptions {
  /** Hard limit for the whole command; it is killed after this. */
  timeoutMs: number;
  signal?: AbortSignal;
}

export type RunOutcome = (ExecResult & { timedOut: false }) | { timedOut: true };

function envLines(env: Record<string, string>): string {
  assertEnvNames(env);
  let out = '';
  for (const [k, v] of Object.entries(env)) {
    if (/[\n\r]/.test(v)) throw new Error(`storage: the value of ${k} contains a line break`);
    out += `${k}=${v}\n`;
  }
  return `${out}\n`;
}

/** Runs `script` (built from shellQuote'd words) under /bin/sh on the node with `env` exported. */
export async function runWithEnv(t: Transport, script: string, env: Record<string, string>, opts: RunOptions): Promise<RunOutcome> {
  const timer = AbortSignal.timeout(opts.timeoutMs);
  const signal = opts.signal ? AbortSignal.any([opts.signal, timer]) : timer;
  try {
    const r = await t.execShell(`${PRELUDE}\n${script}`, { stdin: envLines(env), signal });
    return { ...r, timedOut: false };
  } catch (e) {
    if (e instanceof AbortedError && timer.aborted && !opts.signal?.aborted) return { timedOut: true };
    throw e;
  }
}
