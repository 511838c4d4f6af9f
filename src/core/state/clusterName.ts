// SkyPilot's rule for cluster names; it also keeps names safe as directory names, in shell
// words and in ssh_config lines. Launch checks new names with it, and every row read from
// the state file is checked again (the file may come from a cloned repository).
const VALID = /^[a-zA-Z]([-_.a-zA-Z0-9]*[a-zA-Z0-9])?$/;
export const CLUSTER_NAME_MAX = 63;

/** Why `name` is not a valid cluster name, or undefined when it is. */
export function clusterNameProblem(name: unknown): string | undefined {
  if (typeof name === 'string' && name.length <= CLUSTER_NAME_MAX && VALID.test(name)) return undefined;
  return (
    `cluster name ${printable(name)} is not valid: start with a letter, then letters, digits, '-', '_' or '.', ` +
    `end with a letter or digit, at most ${CLUSTER_NAME_MAX} characters`
  );
}

/** A value from an untrusted row, quoted and with control characters escaped, for messages. */
export function printable(v: unknown, max = 80): string {
  if (typeof v !== 'string') return String(v);
  const s = v;
  const cut = s.length > max ? `${s.slice(0, max)}…` : s;
  return JSON.stringify(cut).replace(/[\u007f-\u009f\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
