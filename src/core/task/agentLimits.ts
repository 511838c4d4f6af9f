// What the head-node agent refuses in a submitted job spec, so the task parser can refuse it
// first, with a position, before anything is provisioned. Each value names the Python that
// enforces it; test/unit/task/agentLimits.test.ts imports that Python and checks they agree.

/** agent/skydeck_agent_lib/spec.py MAX_NAME: `name` (and `user`, env names), in characters. */
export const MAX_NAME_CHARS = 256;
/** spec.py MAX_SCRIPT: `setup` and `run`, each, in characters. */
export const MAX_SCRIPT_CHARS = 1 << 20;
/** spec.py MAX_PATH: the job's working directory on the node, in characters. */
export const MAX_PATH_CHARS = 4096;
/** spec.py MAX_ENV_ENTRY: one `NAME=value` in UTF-8 bytes, without the terminating NUL. */
export const MAX_ENV_ENTRY_BYTES = 128 * 1024 - 1;
/** spec.py MAX_ENV_TOTAL: all `NAME=value` entries together, in UTF-8 bytes. */
export const MAX_ENV_TOTAL_BYTES = 1 << 20;
/** spec.py _ENV_NAME: an env (or secret) name. */
export const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** spec.py _ACC_NAME: the accelerator name the job asks the scheduler for. */
export const ACCELERATOR_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/** Characters as Python's len() counts them (code points, not UTF-16 units). */
export function codePoints(s: string): number {
  let pairs = 0;
  for (let i = 0; i < s.length - 1; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        pairs++;
        i++;
      }
    }
  }
  return s.length - pairs;
}

/** spec.py _utf8: a lone surrogate cannot be stored in a file, env or database. */
export function hasLoneSurrogate(s: string): boolean {
  return /\p{Cs}/u.test(s);
}

/** An env entry's size as spec.py counts it: NAME, '=', value, in UTF-8 bytes. */
export function envEntryBytes(name: string, value: string): number {
  return Buffer.byteLength(name, 'utf8') + 1 + Buffer.byteLength(value, 'utf8');
}
