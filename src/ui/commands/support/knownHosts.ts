import * as os from 'node:os';
import * as path from 'node:path';
import type { OpsContext } from '../../../core/ops';

/** Skydeck's known_hosts, then the user's: the keys Skydeck's own connections trust. */
export function knownHostsFiles(ops: OpsContext): string[] {
  return [ops.connections.knownHostsFile, path.join(os.homedir(), '.ssh', 'known_hosts')];
}
