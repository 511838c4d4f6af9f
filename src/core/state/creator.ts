import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { printable } from './clusterName';

// Who wrote a cluster row. A state file can come with a cloned repository, so a row is only
// acted on without the user asking (start-up reconcile, refresh, polling its agent) when this
// machine wrote it: the machine id lives in the user's home, where no repository reaches.

export interface Creator {
  user: string;
  machine: string;
}

const MACHINE_ID = /^[0-9a-f]{32}$/;
const cache = new Map<string, string>();

/** This machine's id: 128 random bits kept in ~/.skydeck/machine-id (0600), made on first use. */
export function machineId(home = os.homedir()): string {
  const known = cache.get(home);
  if (known) return known;
  const file = path.join(home, '.skydeck', 'machine-id');
  let id = readId(file);
  if (!id) {
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    try {
      // wx: two processes starting at once agree on the first one's id.
      fs.writeFileSync(file, `${randomBytes(16).toString('hex')}\n`, { flag: 'wx', mode: 0o600 });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    id = readId(file);
    if (!id) throw new Error(`${file} does not hold a Skydeck machine id (32 hex digits): delete it and try again`);
  }
  cache.set(home, id);
  return id;
}

function readId(file: string): string | undefined {
  try {
    const text = fs.readFileSync(file, 'utf8').trim();
    return MACHINE_ID.test(text) ? text : undefined;
  } catch {
    return undefined;
  }
}

export function thisCreator(home?: string): Creator {
  let user: string;
  try {
    user = os.userInfo().username;
  } catch {
    user = process.env.USER ?? 'unknown';
  }
  // eslint-disable-next-line no-control-regex
  return { user: user.replace(/[\u0000-\u001f\u007f]/g, '?').slice(0, 64) || 'unknown', machine: machineId(home) };
}

/** Why this machine cannot attribute the row to a launch it made, or undefined when it can. */
export function notOursReason(row: { created_by_user: string | null; created_by_machine: string | null }, home?: string): string | undefined {
  if (!row.created_by_machine) {
    return 'it records no creator (written before Skydeck recorded one, or not by Skydeck, e.g. a state file that came with the repository)';
  }
  if (row.created_by_machine !== machineId(home)) {
    return `it was launched from another machine${row.created_by_user ? ` (by ${printable(row.created_by_user)})` : ''}, or the state file came with the repository`;
  }
  return undefined;
}
