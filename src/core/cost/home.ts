import * as os from 'node:os';
import * as path from 'node:path';

/**
 * The per-user Skydeck directory. `SKYDECK_HOME` moves it (tests, and users who keep several
 * identities apart); by default `~/.skydeck`, where the catalog cache and keys also live.
 */
export function skydeckHome(env: NodeJS.ProcessEnv = process.env): string {
  const set = env.SKYDECK_HOME;
  return set && path.isAbsolute(set) ? set : path.join(os.homedir(), '.skydeck');
}
