// Writes a cluster row straight into a state file, as a hostile repository could ship it:
// no check on the way in (putCluster would refuse most of these).
import { randomUUID } from 'node:crypto';
import type { StateStore } from '../../src/core/state';

export type PlantedRow = Record<string, string | number | null>;

export function plantedRow(over: PlantedRow = {}): PlantedRow {
  const now = Date.now();
  return {
    name: 'evil', uid: randomUUID(), provider: 'local', region: null, zone: null, status: 'UP', resources: null, num_nodes: 1,
    head_address: 'localhost', ssh_user: null, ssh_port: null, ssh_key_path: null, handle: null, launched_at: now, updated_at: now,
    last_error: null, autostop_minutes: null, autostop_down: 0, flags: null, created_by_user: null, created_by_machine: null, ...over,
  };
}

export async function plantRow(store: StateStore, over: PlantedRow = {}): Promise<PlantedRow> {
  const row = plantedRow(over);
  const cols = Object.keys(row);
  await store.write((db) => db.run(`INSERT INTO clusters (${cols.join(',')}) VALUES (${cols.map(() => '?').join(',')})`, cols.map((c) => row[c])));
  return row;
}
