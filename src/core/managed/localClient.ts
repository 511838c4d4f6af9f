// The managed-jobs client for a controller on THIS machine: reads and writes the store file
// directly (it is local), and asks `startController` to make sure a controller process serves
// it. Starting the process is the caller's (the CLI knows its own entry; the editor its bundle).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { LocalTransport } from '../transport';
import { thisCreator } from '../state';
import { readKeptLog, type KeptFrom } from './keptLogs';
import { linesAbout } from './controllerLog';
import { ManagedStore } from './store';
import { getJob, hasWork, insertJob, listJobs, listManagedEvents, requestCancel, type JobListing, type ManagedEvent, type ManagedJob } from './jobRows';
import { isTerminal } from './states';
import { jobNameOf } from './names';
import { checkSubmit } from './submitCheck';
import { noCarry, planCarry, UPLOAD_TOKEN, uploadsRoot } from './carryFiles';
import { sendCarry } from './carrySend';
import { refuseIfSealed, sealIfIdle, unseal, type SealWhy } from './seal';
import type { CancelOutcome, ControllerNote, ManagedJobsClient, ManagedSubmit } from './client';

export class LocalManagedClient implements ManagedJobsClient {
  private constructor(
    private readonly store: ManagedStore, private readonly startController: () => ControllerNote, private readonly now: () => number,
    private readonly home: string | undefined,
  ) {}

  /** `home`: the controller's workspace root (its kept logs and log file); absent: neither is read. */
  static async open(storeFile: string, startController: () => ControllerNote, now: () => number = Date.now, home?: string): Promise<LocalManagedClient> {
    return new LocalManagedClient(await ManagedStore.open(storeFile), startController, now, home);
  }

  async submit(req: ManagedSubmit): Promise<{ id: number; controller: ControllerNote }> {
    const envs = req.envs ?? {};
    const firstName = checkSubmit(req.tasks, envs);
    // The files are copied even here: the job runs them as they were when it was submitted.
    const plan = req.base !== undefined && this.home !== undefined ? planCarry(req.tasks, envs, req.base, uploadsRoot(this.home)) : noCarry(req.tasks);
    const uploads = plan.token ?? (req.uploads !== undefined && UPLOAD_TOKEN.test(req.uploads) ? req.uploads : undefined);
    let id: number;
    try {
      await sendCarry(new LocalTransport(), 'python3', plan);
      id = await this.store.write((db) => {
        refuseIfSealed(this.store.file, Date.now());
        return insertJob(db, { name: jobNameOf(req.name ?? firstName), tasks: plan.tasks, envs, now: this.now(), creator: thisCreator(), uploads });
      });
    } catch (e) {
      if (plan.dir) fs.rmSync(plan.dir, { recursive: true, force: true });
      throw e;
    }
    // Written BEFORE the controller check: a controller that is just stopping looks again
    // after releasing its lease, so the job is never stranded.
    return { id, controller: this.startController() };
  }

  /** Any look at a store with work left makes sure a controller serves it (one killed is restarted). */
  async list(): Promise<JobListing> {
    const listing = await this.store.read((db) => listJobs(db));
    if (listing.jobs.some(hasWork)) this.ensureOnce();
    return listing;
  }

  // Once per client: a follow looks every 200 ms, and a just-spawned controller takes a moment to hold the lease.
  private ensured = false;
  private ensureOnce(): void {
    if (this.ensured) return;
    this.ensured = true;
    this.startController();
  }

  events(id: number): Promise<ManagedEvent[]> {
    return this.store.read((db) => listManagedEvents(db, id));
  }

  async job(id: number): Promise<ManagedJob | undefined> {
    const j = await this.store.read((db) => getJob(db, id));
    if (j && hasWork(j)) this.ensureOnce();
    return j;
  }

  /** Seals the store against new jobs if none is unfinished (seal.ts); returns the unfinished ones. */
  seal(why: SealWhy, force = false): Promise<number[]> {
    return this.store.write((db) => sealIfIdle(db, this.store.file, why, Date.now(), force));
  }

  async unseal(): Promise<void> {
    unseal(this.store.file);
  }

  async cancel(ids: number[] | 'all'): Promise<CancelOutcome> {
    const now = this.now();
    const targets = ids === 'all' ? (await this.store.read((db) => listJobs(db))).jobs.filter((j) => !isTerminal(j.status)).map((j) => j.id) : ids;
    const requested = await this.store.write((db) => targets.filter((id) => requestCancel(db, id, now)));
    // A controller that died would leave the request unserved: make sure one runs.
    if (requested.length) this.startController();
    return { requested, skipped: targets.filter((id) => !requested.includes(id)) };
  }

  async keptLog(id: number, from?: KeptFrom): Promise<Buffer | undefined> {
    return this.home === undefined ? undefined : readKeptLog(this.home, id, from);
  }

  async controllerLog(id: number): Promise<string[]> {
    return this.home === undefined ? [] : linesAbout(path.join(this.home, 'controller.log'), id);
  }

  async close(): Promise<void> {
    this.store.close();
  }
}
