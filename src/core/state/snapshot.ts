import * as fs from 'node:fs';
import type { Database } from 'sql.js';
import { loadSqlJs } from './sqlJs';
import { migrate, schemaVersion, SCHEMA_VERSION } from './schema';
import { readCheckedImage, shapeOf, type ImageSchema } from './checkedImage';

const expectedShape = shapeOf(loadSqlJs, migrate);
const SCHEMA: ImageSchema = { version: schemaVersion, latest: SCHEMA_VERSION, migrate, label: (v) => `schema v${v}` };
const MAX_BYTES = 256 << 20;

/** Another workspace's state, read into memory: no lock taken, nothing migrated on disk or moved aside. */
export interface StateSnapshot {
  read<T>(fn: (db: Database) => T): Promise<T>;
  close(): void;
}

/**
 * A read-only copy of a state file (cost-report --all): the file is checked like any state
 * image, but a damaged or newer one is refused here instead of being moved aside, and
 * nothing is ever written back, so another workspace's state is never changed.
 */
export async function readStateSnapshot(file: string): Promise<StateSnapshot> {
  const st = fs.lstatSync(file);
  if (!st.isFile()) throw new Error(`${file} is not a regular file`);
  if (st.size > MAX_BYTES) throw new Error(`${file} is too large to read`);
  const read = await readCheckedImage(await loadSqlJs(), file, fs.readFileSync(file), SCHEMA, expectedShape);
  if (read.problem !== undefined) throw new Error(`${file} was not read: ${read.problem}`);
  const db = read.db;
  return { read: async (fn) => fn(db), close: () => db.close() };
}
