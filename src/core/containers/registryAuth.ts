// Private registries: SkyPilot's SKYPILOT_DOCKER_USERNAME / _PASSWORD / _SERVER. The values go
// to the node's `login --password-stdin` on stdin only: never on a command line, in a log, an
// event or the state file.

export interface RegistryAuth {
  server: string;
  username: string;
  password: string;
}

/** From the task's envs (as SkyPilot reads them) first, then this process's environment. */
export function registryAuthOf(taskEnvs: Record<string, string>, env: NodeJS.ProcessEnv = process.env): RegistryAuth | undefined {
  const get = (k: string) => taskEnvs[k] ?? env[k];
  const username = get('SKYPILOT_DOCKER_USERNAME');
  const password = get('SKYPILOT_DOCKER_PASSWORD');
  const server = get('SKYPILOT_DOCKER_SERVER');
  if (!username || !password || !server) return undefined;
  return { server, username, password };
}

/** What the node script reads on stdin: three lines (a newline in a value is refused). */
export function authStdin(a: RegistryAuth | undefined): string {
  if (!a) return '';
  for (const v of [a.server, a.username, a.password]) if (/[\r\n\0]/.test(v)) throw new Error('SKYPILOT_DOCKER_* values may not hold newlines');
  return `${a.server}\n${a.username}\n${a.password}\n`;
}

/** Removes the password (and its base64, as a runtime might echo an auth header) from text. */
export function redactAuth(text: string, a: RegistryAuth | undefined): string {
  if (!a) return text;
  let out = text;
  for (const s of [a.password, Buffer.from(`${a.username}:${a.password}`).toString('base64')]) {
    if (s) out = out.split(s).join('<redacted>');
  }
  return out;
}
