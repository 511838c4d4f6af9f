import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Database } from 'sql.js';
import { loadSqlJs } from '../state/sqlJs';
import { removeStaleTemps, writeFileAtomic, writeFileAtomicAsync } from '../state/atomicWrite';
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
  /**
   * The loaded (or last saved) file, kept open: the stamp is taken of exactly the bytes loaded
   * (a stamp taken after the load's await could name a newer save by another process, whose
   * jobs the next write then overwrote), and while it is open no other file can get its inode
   * (ext4 hands the next temp file the inode a rename just freed), so a stamp cannot repeat.
   */
  private held: number | undefined;
  private readonly lock: FileLock;
  private readonly writer: GroupCommit;

  private constructor(readonly file: string, private db: Database, lockOpts: LockOptions) {
    this.lock = new FileLock(`${file}.lock`, lockOpts);
    this.writer = new GroupCommit({
      lock: this.lock, refresh: async () => void (this.stamp() !== this.loadedAt && (await this.load())), db: () => this.db, save: () => this.saveAsync(),
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

  /** `fn` on the latest durable image: never on writes whose save is still under way. */
  async read<T>(fn: (db: Database) => T): Promise<T> {
    for (;;) {
      await this.writer.idle();
      if (this.stamp() !== this.loadedAt) await this.load();
      else if (!this.writer.busy) return fn(this.db);
    }
  }

  /** `fn` in a transaction over the latest saved image; saved before it resolves (groupCommit.ts). */
  write<T>(fn: (db: Database) => T): Promise<T> {
    return this.writer.write(fn);
  }

  close(): void {
    this.db.close();
    this.hold(undefined);
  }

  private hold(fd: number | undefined): void {
    if (this.held !== undefined) fs.closeSync(this.held);
    this.held = fd;
  }

  private stampOf(s: fs.BigIntStats): string {
    return `${s.ino}:${s.size}:${s.mtimeNs}`;
  }

  private stamp(): string | undefined {
    try {
      return this.stampOf(fs.statSync(this.file, { bigint: true }));
    } catch {
      return undefined;
    }
  }

  private save(): void {
    writeFileAtomic(this.file, this.db.export());
    this.holdSaved(this.db);
  }

  /** A group commit's save: the image is taken now, written and fsynced off the thread. */
  private async saveAsync(): Promise<void> {
    const db = this.db;
    await writeFileAtomicAsync(this.file, db.export());
    this.holdSaved(db);
  }

  private holdSaved(saved: Database): void {
    // Under the lock: the file is still the one just written.
    const fd = fs.openSync(this.file, 'r');
    this.hold(fd);
    // A reload that finished meanwhile put the file from before this save in memory: the
    // next read or write loads the file again rather than trust that image.
    this.loadedAt = this.db === saved ? this.stampOf(fs.fstatSync(fd, { bigint: true })) : undefined;
  }

  /** Loads the file (or starts fresh) and migrates; true if the image needs saving. */
  private async load(): Promise<boolean> {
    const SQL = await loadSqlJs();
    const st = fs.statSync(this.file, { throwIfNoEntry: false });
    if (!st) return this.fresh(new SQL.Database());
    if (!st.isFile()) throw new StateFileError(this.file, st.isDirectory() ? 'a directory' : 'not a regular file');
    // Read through one descriptor, kept: the stamp is of exactly the bytes loaded.
    const fd = fs.openSync(this.file, 'r');
    let read;
    try {
      if (!fs.fstatSync(fd).isFile()) throw new StateFileError(this.file, 'not a regular file');
      read = await readCheckedImage(SQL, this.file, fs.readFileSync(fd), SCHEMA, expectedShape);
    } catch (e) {
      fs.closeSync(fd);
      throw e;
    }
    if (read.problem !== undefined) {
      fs.closeSync(fd);
      this.moveAside(read.problem);
      return this.fresh(new SQL.Database());
    }
    this.replace(read.db);
    this.hold(fd);
    this.loadedAt = this.stampOf(fs.fstatSync(fd, { bigint: true }));
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
