import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Database } from 'sql.js';
import { loadSqlJs } from '../state/sqlJs';
import { removeStaleTemps, writeFileAtomic } from '../state/atomicWrite';
import { FileLock, type LockOptions } from '../state/fileLock';
import { GroupCommit } from '../state/groupCommit';
import { moveAsideDamaged, readCheckedImage, shapeOf, type ImageSchema } from '../state/checkedImage';
import { StateFileError, type StateNotice } from '../state/errors';
import { managedSchemaVersion, migrateManaged, MANAGED_SCHEMA_VERSION } from './schema';

const expectedShape = shapeOf(loadSqlJs, migrateManaged);
const SCHEMA: ImageSchema = { version: managedSchemaVersion, latest: MANAGED_SCHEMA_VERSION, migrate: migrateManaged, label: () => 'the managed-jobs schema' };

/**
 * The managed-jobs controller's store: one sql.js image, written as the workspace state is
 * (stateStore.ts): every write a transaction under a lock file over the latest saved image,
 * saved atomically, so a controller killed at any instant leaves the old or the new file.
 * A damaged image is moved aside (a notice says where) and a fresh one started.
 */
export class ManagedStore {
  readonly notices: StateNotice[] = [];
  private loadedAt: string | undefined;
  private readonly lock: FileLock;
  private readonly writer: GroupCommit;

  private constructor(readonly file: string, private db: Database, lockOpts: LockOptions) {
    this.lock = new FileLock(`${file}.lock`, lockOpts);
    this.writer = new GroupCommit({
      lock: this.lock, refresh: async () => void (this.stamp() !== this.loadedAt && (await this.load())), db: () => this.db, save: () => this.save(),
      invalidate: () => void (this.loadedAt = undefined),
    });
  }

  /** `<workspace>/.skydeck/managed.db`: next to the state of the controller's own clusters. */
  static fileIn(workspaceRoot: string): string {
    return path.join(workspaceRoot, '.skydeck', 'managed.db');
  }

  static async open(file: string, lockOpts: LockOptions = {}): Promise<ManagedStore> {
    const SQL = await loadSqlJs();
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const store = new ManagedStore(file, new SQL.Database(), lockOpts);
    await store.lock.acquire();
    try {
      removeStaleTemps(file);
      if (await store.load()) store.save();
    } catch (e) {
      store.db.close();
      throw e;
    } finally {
      store.lock.release();
    }
    return store;
  }

  async read<T>(fn: (db: Database) => T): Promise<T> {
    if (this.stamp() !== this.loadedAt) await this.load();
    return fn(this.db);
  }

  /** `fn` in a transaction over the latest saved image; saved before it resolves (groupCommit.ts). */
  write<T>(fn: (db: Database) => T): Promise<T> {
    return this.writer.write(fn);
  }

  close(): void {
    this.db.close();
  }

  private stamp(): string | undefined {
    try {
      const s = fs.statSync(this.file, { bigint: true });
      return `${s.ino}:${s.size}:${s.mtimeNs}`;
    } catch {
      return undefined;
    }
  }

  private save(): void {
    writeFileAtomic(this.file, this.db.export());
    this.loadedAt = this.stamp();
  }

  /** Loads the file (or starts fresh) and migrates; true if the image needs saving. */
  private async load(): Promise<boolean> {
    const SQL = await loadSqlJs();
    const st = fs.statSync(this.file, { throwIfNoEntry: false });
    if (!st) return this.fresh(new SQL.Database());
    if (!st.isFile()) throw new StateFileError(this.file, st.isDirectory() ? 'a directory' : 'not a regular file');
    const read = await readCheckedImage(SQL, this.file, fs.readFileSync(this.file), SCHEMA, expectedShape);
    if (read.problem !== undefined) {
      this.moveAside(read.problem);
      return this.fresh(new SQL.Database());
    }
    this.replace(read.db);
    this.loadedAt = this.stamp();
    return read.changed;
  }

  private fresh(db: Database): boolean {
    this.replace(db);
    this.loadedAt = undefined;
    return migrateManaged(this.db);
  }

  private moveAside(problem: string): void {
    const movedTo = moveAsideDamaged(this.file);
    this.notices.push({
      kind: 'corrupt-moved', movedTo,
      message: `the managed-jobs store ${this.file} was damaged (${problem}); it was moved to ${movedTo} and a new one started. Clusters of jobs recorded only there may still run: "leaks" lists them.`,
    });
  }

  private replace(db: Database): void {
    if (db !== this.db) this.db.close();
    this.db = db;
  }
}
