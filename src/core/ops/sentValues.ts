// The values a job is sent, checked against the agent's limits before anything is provisioned:
// --secret values (and the editor's answers) never pass through the task parser, which checks
// only the file and --env, so without this a value the agent refuses would be found at submit,
// after the cluster was claimed. Messages name the variable, never its value.
import { MAX_ENV_ENTRY_BYTES, MAX_ENV_TOTAL_BYTES, envEntryBytes, hasLoneSurrogate } from '../task/agentLimits';

const n = (x: number) => x.toLocaleString('en-US');

/** What the agent would refuse about these envs and secrets, or undefined. */
export function sentValuesProblem(envs: Record<string, string>, secrets: Record<string, string>): string | undefined {
  let total = 0;
  for (const [section, values] of [['env', envs], ['secret', secrets]] as const) {
    for (const [k, v] of Object.entries(values)) {
      if (v.includes('\0')) return `${section} ${k}: the value contains a NUL character (\\0), which no process environment can hold`;
      if (hasLoneSurrogate(v)) return `${section} ${k}: the value contains a lone UTF-16 surrogate, which is not valid text`;
      const size = envEntryBytes(k, v);
      if (size > MAX_ENV_ENTRY_BYTES) return `${section} ${k} is too large: ${n(size)} bytes as NAME=value; a process environment entry holds at most ${n(MAX_ENV_ENTRY_BYTES)} (put large data in a file)`;
      total += size;
    }
  }
  if (total > MAX_ENV_TOTAL_BYTES) return `envs and secrets are ${n(total)} bytes in total (as NAME=value); the agent on the node accepts at most ${n(MAX_ENV_TOTAL_BYTES)}`;
  return undefined;
}
