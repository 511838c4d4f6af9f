// The shell words every exec through the Kubernetes API runs. The exec stream (WebSocket
// v4, all a 1.20 API server speaks) cannot close stdin on its own, so input is sent with its
// length first and cut with `head -c`; the command's pid comes first on stderr so an abort
// can signal it (the stream has no signals either). Every value is an argument, never code.
import type * as k8s from '@kubernetes/client-node';

/** The marker line the wrapper writes first on stderr. */
export const PID_MARK = 'skydeck-exec-pid ';

const SCRIPT = [
  `printf '${PID_MARK}%s\\n' "$$" >&2`,
  'd=$1; n=$2; e=$3; shift 3',
  'while [ "$e" -gt 0 ]; do export "$1"; shift; e=$((e-1)); done',
  'case $d in "~") d=$HOME;; "~/"*) d="$HOME/${d#??}";; esac',
  'if [ -n "$d" ]; then cd -- "$d" || exit 1; fi',
  'if [ "$n" = - ]; then exec "$@" </dev/null; fi',
  // A channel: the stream itself (it never needs an end of input; closing the stream ends it).
  'if [ "$n" = all ]; then exec "$@"; fi',
  // A FIFO so the command itself keeps this pid: `head | cmd` would run it in a subshell.
  // fd 4 keeps the real stdin (a background job's stdin is /dev/null otherwise).
  'f=$(mktemp -u "${TMPDIR:-/tmp}/skydeck-in.XXXXXX") || exit 1; mkfifo -m 600 "$f" || exit 1',
  'exec 4<&0; head -c "$n" <&4 >"$f" & exec 3<"$f"; rm -f "$f"; exec "$@" <&3 3<&- 4<&-',
].join('\n');

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** stdinBytes: undefined = no input, 'all' = the stream as it is (channels), N = exactly N bytes. */
export function wrapCommand(argv: string[], o: { cwd?: string; env?: Record<string, string>; stdinBytes?: number | 'all' }): string[] {
  const env = Object.entries(o.env ?? {});
  for (const [k] of env) if (!NAME.test(k)) throw new Error(`environment name ${JSON.stringify(k)} is not a shell identifier`);
  return ['/bin/sh', '-c', SCRIPT, 'sh', o.cwd ?? '', o.stdinBytes === undefined ? '-' : String(o.stdinBytes), String(env.length), ...env.map(([k, v]) => `${k}=${v}`), ...argv];
}

/** The exit code the API reports; null when the stream ended without one (connection lost). */
export function exitCode(s: k8s.V1Status | undefined): number | null {
  if (!s) return null;
  if (s.status === 'Success') return 0;
  const c = s.details?.causes?.find((x) => x.reason === 'ExitCode');
  return c?.message !== undefined && /^\d+$/.test(c.message) ? Number(c.message) : null;
}
