import type { Database } from 'sql.js';
import type { FileLock } from './fileLock';

/** What a store lends its writer: its lock, its image, and how to refresh and save it. */
export interface CommitTarget {
  readonly lock: FileLock;
  /** Brings the image up to date with the file (called under the lock). */
  refresh(): Promise<void>;
  db(): Database;
  /**
   * Saves the image atomically. The image is taken before save() first yields; the rest (write,
   * fsync, rename) may run off the thread, while reads wait (idle()) and new writes queue.
   */
  save(): void | Promise<void>;
  /** After a failure mid-write: the image may differ from the file, so read the file again. */
  invalidate(): void;
}

interface Pending {
  fn: (db: Database) => unknown;
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
}

/**
 * Serialised writes with group commit. Writes of this process queue here (they never poll their
 * own lock file); those that queue while a save is under way are committed together under one
 * lock and one save, each in its own savepoint, so one that throws is rolled back alone and
 * none resolves before the save that holds it. A save (export + fsync of the whole image) costs
 * tens of ms: many writes at once (a controller launching hundreds of clusters) pay a few. The
 * save's I/O may run off the thread; writes made meanwhile queue for the next save.
 */
export class GroupCommit {
  private queue: Promise<void> = Promise.resolve();
  private readonly pending: Pending[] = [];
  /** Set from a batch's COMMIT until its save is durable (or failed). */
  private saving: Promise<unknown> | undefined;

  constructor(private readonly t: CommitTarget) {}

  /** Whether committed writes are not yet durable: a read now would see them. */
  get busy(): boolean {
    return this.saving !== undefined;
  }

  /**
   * Resolves when no save is under way. Readers run their query only when `busy` is false, so
   * nothing they see (and act on: a cloud call, a teardown) can be lost to a crash.
   */
  async idle(): Promise<void> {
    while (this.saving) await this.saving.catch(() => undefined);
  }

  write<T>(fn: (db: Database) => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.pending.push({ fn, resolve: resolve as (v: unknown) => void, reject });
      if (this.pending.length === 1) this.queue = this.queue.then(() => this.flush());
    });
  }

  private async flush(): Promise<void> {
    let batch: Pending[] = [];
    const results: { ok: boolean; value: unknown }[] = [];
    let inTx = false;
    try {
      await this.t.lock.acquire();
      try {
        // Taken once the lock is ours: writes queued while we waited join this save.
        batch = this.pending.splice(0);
        if (!batch.length) return;
        await this.t.refresh();
        const db = this.t.db();
        db.exec('BEGIN');
        inTx = true;
        for (const w of batch) {
          db.exec('SAVEPOINT w');
          try {
            results.push({ ok: true, value: w.fn(db) });
            db.exec('RELEASE w');
          } catch (e) {
            db.exec('ROLLBACK TO w');
            db.exec('RELEASE w');
            results.push({ ok: false, value: e });
          }
        }
        db.exec('COMMIT');
        inTx = false;
        const saving = (this.saving = Promise.resolve(this.t.save()));
        try {
          await saving;
        } finally {
          this.saving = undefined;
        }
      } finally {
        this.t.lock.release();
      }
    } catch (e) {
      try {
        if (inTx) this.t.db().exec('ROLLBACK');
      } catch {
        /* the image is read again from the file below */
      }
      this.t.invalidate();
      // A lock timeout before the splice fails what is queued now.
      (batch.length ? batch : this.pending.splice(0)).forEach((w) => w.reject(e));
      return;
    }
    batch.forEach((w, i) => (results[i].ok ? w.resolve(results[i].value) : w.reject(results[i].value)));
  }
}
