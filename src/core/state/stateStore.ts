import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Database } from 'sql.js';
import { loadSqlJs } from './sqlJs';
import { removeStaleTemps, writeFileAtomic, writeFileAtomicAsync } from './atomicWrite';
import { FileLock, LockOptions } from './fileLock';
import { GroupCommit } from './groupCommit';
import { migrate, schemaVersion, SCHEMA_VERSION } from './schema';
import { StateFileError, StateNotice } from './errors';
import { moveAsideDamaged, readCheckedImage, rememberChecked, shapeOf, type ImageSchema } from './checkedImage';

interface FileId {
  ino: bigint;
  size: bigint;
  mtimeNs: bigint;
  isFile: boolean;
  isDir: boolean;
}

/** The tables and columns of a fresh state at SCHEMA_VERSION, built once. */
const expectedShape = shapeOf(loadSqlJs, migrate);
const SCHEMA: ImageSchema = { version: schemaVersion, latest: SCHEMA_VERSION, migrate, label: (v) => `schema v${v}` };

/**
 * The workspace state: one SQLite image (sql.js) persisted to a file. Every write is a
 * transaction under a lock file that first reloads what other processes saved, then saves
 * atomically — so two windows on one workspace never lose each other's updates and a crash
 * never leaves a torn file.
 */
export class StateStore {
  readonly notices: StateNotice[] = [];
  private loaded: FileId | undefined;
  private readonly lock: FileLock;
  private readonly writer: GroupCommit;

  private constructor(readonly file: string, private db: Database, lockOpts: LockOptions) {
    this.lock = new FileLock(`${file}.lock`, lockOpts);
    this.writer = new GroupCommit({
      lock: this.lock, refresh: () => this.refresh(), db: () => this.db, save: () => this.saveAsync(), invalidate: () => void (this.loaded = undefined),
    });
  }

  /** Opens `<workspace>/.skydeck/state.db`, keeping it out of git. */
  static async openWorkspace(workspaceRoot: string, lockOpts: LockOptions = {}): Promise<StateStore> {
    const dir = path.join(workspaceRoot, '.skydeck');
    // The workspace may come from someone else: a .skydeck that is a link would have the state,
    // its lock and .gitignore written wherever it points.
    const st = fs.lstatSync(dir, { throwIfNoEntry: false });
    if (st && !st.isDirectory()) throw new StateFileError(dir, st.isSymbolicLink() ? `a symbolic link (to ${JSON.stringify(fs.readlinkSync(dir))})` : 'not a directory');
    fs.mkdirSync(dir, { recursive: true });
    const ignore = path.join(dir, '.gitignore');
    if (!fs.existsSync(ignore)) fs.writeFileSync(ignore, '# Skydeck state: never commit it.\n*\n');
    return StateStore.open(path.join(dir, 'state.db'), lockOpts);
  }

  static async open(file: string, lockOpts: LockOptions = {}): Promise<StateStore> {
    const SQL = await loadSqlJs();
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const store = new StateStore(file, new SQL.Database(), lockOpts);
    await store.lock.acquire();
    try {
      removeStaleTemps(file);
      if (await store.loadOrRecover()) store.save();
    } catch (e) {
      store.db.close();
      throw e;
    } finally {
      store.lock.release();
    }
    return store;
  }

  /**
   * Runs `fn` on an up-to-date, durable image; no lock (saves replace the file atomically). It
   * waits out a save under way, so it never sees (and acts on) writes a crash could still lose.
   */
  async read<T>(fn: (db: Database) => T): Promise<T> {
    for (;;) {
      await this.writer.idle();
      await this.refresh();
      if (!this.writer.busy) return fn(this.db);
    }
  }

  /**
   * Runs `fn` in a transaction over the latest saved state and saves the result before it
   * resolves. Writers of this process queue here (never polling their own lock file); those
   * queued while a save is under way share the next one (groupCommit.ts), so hundreds of
   * launches at once (a managed-jobs controller) pay a few saves, not one each.
   */
  write<T>(fn: (db: Database) => T): Promise<T> {
    return this.writer.write(fn);
  }

  close(): void {
    this.db.close();
  }

  /** Saves of this store under way: until one ends, the file on disk may be ours but not yet known as ours. */
  private savesInFlight = 0;
  /** The identity of the file this store saved last. */
  private ownSave: ReturnType<typeof statId>;

  /** A save of this store is under way (a watcher looks again after it: changedOnDisk). */
  get saving(): boolean {
    return this.savesInFlight > 0;
  }

  /** Whether the file is not the one this store last loaded or saved: another process saved it. */
  changedOnDisk(): boolean {
    const id = statId(this.file);
    // The file this store wrote last is ours, even when a reload raced that save (loaded unset).
    if (id && this.ownSave && sameId(id, this.ownSave)) return false;
    if (!id || !this.loaded) return !!id !== !!this.loaded;
    return !sameId(id, this.loaded);
  }

  private async refresh(): Promise<void> {
    const id = statId(this.file);
    if (id && this.loaded && sameId(id, this.loaded)) return;
    await this.loadOrRecover();
  }

  private save(): void {
    const bytes = this.db.export();
    writeFileAtomic(this.file, bytes);
    rememberChecked(SCHEMA, this.file, bytes);
    this.loaded = this.ownSave = statId(this.file);
  }

  /** A group commit's save: the image is taken now, written and fsynced off the thread. */
  private async saveAsync(): Promise<void> {
    const db = this.db;
    const bytes = db.export();
    this.savesInFlight++;
    try {
      await writeFileAtomicAsync(this.file, bytes);
    } finally {
      this.savesInFlight--;
    }
    rememberChecked(SCHEMA, this.file, bytes);
    // A reload that finished meanwhile holds the file from before this save: load again next time.
    this.ownSave = statId(this.file);
    this.loaded = this.db === db ? this.ownSave : undefined;
  }

  /** Loads the file (or a fresh image) and migrates it; true if the result needs saving. */
  private async loadOrRecover(): Promise<boolean> {
    const SQL = await loadSqlJs();
    const id = statId(this.file);
    if (!id) {
      this.replaceDb(new SQL.Database());
      this.loaded = undefined;
      return migrate(this.db);
    }
    if (!id.isFile) throw new StateFileError(this.file, id.isDir ? 'a directory' : 'not a regular file');
    const read = await readCheckedImage(SQL, this.file, fs.readFileSync(this.file), SCHEMA, expectedShape);
    if (read.problem !== undefined) {
      this.moveAside(read.problem);
      this.replaceDb(new SQL.Database());
      this.loaded = undefined;
      return migrate(this.db);
    }
    this.replaceDb(read.db);
    this.loaded = id;
    return read.changed;
  }

  private moveAside(problem: string): void {
    const movedTo = moveAsideDamaged(this.file);
    this.notices.push({
      kind: 'corrupt-moved',
      movedTo,
      message:
        `Skydeck's state file ${this.file} was damaged (${problem}). It was moved to ${movedTo} ` +
        `and a new, empty state was started. Clusters recorded only in the old file may still be ` +
        `running: use "Find Leaked Instances" to list them.`,
    });
  }

  private replaceDb(db: Database): void {
    if (db !== this.db) this.db.close();
    this.db = db;
  }
}

function statId(file: string): FileId | undefined {
  try {
    const s = fs.statSync(file, { bigint: true });
    return { ino: s.ino, size: s.size, mtimeNs: s.mtimeNs, isFile: s.isFile(), isDir: s.isDirectory() };
  } catch {
    return undefined;
  }
}

function sameId(a: FileId, b: FileId): boolean {
  return a.ino === b.ino && a.size === b.size && a.mtimeNs === b.mtimeNs;
}
