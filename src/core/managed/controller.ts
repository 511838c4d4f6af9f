// The managed-jobs controller: ONE loop object serving every managed job of its store. Each
// unfinished job has a light async worker (steps.ts); launches share a bounded pool of slots,
// so 256 submissions start launching at once instead of one after another.
import { realClock, type Clock } from '../provision';
import { FileLock } from '../state/fileLock';
import { thisCreator } from '../state';
import type { OpsContext } from '../ops';
import { ManagedStore } from './store';
import { getJob, hasWork, insertJob, listJobs, listManagedEvents, moveJob, patchJob, requestCancel, type JobListing, type JobPatch, type ManagedEvent, type ManagedJob } from './jobRows';
import type { ControllerCore, ControllerOptions } from './core';
import type { ManagedStatus } from './states';
import { sweepUploads } from './carrySweep';
import { refuseIfSealed } from './seal';
import { driveJob, startMove } from './steps';
import { jobNameOf } from './names';
import { LaunchSlot, Slots } from './slots';
import { Wakeups } from './wakeups';
import { CloudPoll } from './cloudPoll';
import { checkSubmit } from './submitCheck';

export interface SubmitRequest {
  /** Task YAML texts, run in order (a pipeline: one per document). */
  tasks: string[];
  name?: string;
  envs?: Record<string, string>;
}

export interface OpenOptions extends Partial<ControllerOptions> {
  /** Default `<workspaceRoot>/.skydeck/managed.db`. */
  storeFile?: string;
  /** How long start() waits for another controller of the same store to go. Default 30 s. */
  leaseTimeoutMs?: number;
  /** Where the controller's own messages go (its errors per job); default ctx.log. */
  log?: (message: string) => void;
}

const UNFINISHED = `WHERE status NOT IN ('SUCCEEDED','FAILED','FAILED_SETUP','FAILED_NO_RESOURCE','FAILED_CONTROLLER','CANCELLED') OR cluster_name IS NOT NULL`;

export class ManagedController implements ControllerCore {
  readonly opts: ControllerOptions;
  private readonly clock: Clock;
  private readonly workers = new Map<number, Promise<void>>();
  private readonly failures = new Map<number, number>();
  private readonly slots: Slots;
  readonly cloudPoll: CloudPoll;
  private readonly wake: Wakeups;
  private readonly lease: FileLock;
  private started = false;
  private scanning: Promise<void> | undefined;
  private sweptAt = 0;

  private readonly say: (message: string) => void;

  private constructor(readonly ctx: OpsContext, readonly store: ManagedStore, o: OpenOptions) {
    this.say = o.log ?? ((m) => ctx.log(m));
    this.opts = { pollMs: o.pollMs ?? 5_000, maxParallelLaunches: o.maxParallelLaunches ?? 64, launchRetries: o.launchRetries ?? 3, maxErrors: o.maxErrors ?? 8 };
    this.clock = ctx.clock ?? realClock;
    this.slots = new Slots(this.opts.maxParallelLaunches);
    this.wake = new Wakeups(this.clock);
    this.cloudPoll = new CloudPoll(ctx, this.clock, this.opts.pollMs);
    this.lease = new FileLock(ManagedController.leaseFileOf(store.file), { timeoutMs: o.leaseTimeoutMs ?? 30_000 });
  }

  /** Opens the store; nothing runs until start(). */
  /** The lease file of a store: held by the one controller serving it. */
  static leaseFileOf(storeFile: string): string {
    return `${storeFile}.controller`;
  }

  static async open(ctx: OpsContext, o: OpenOptions = {}): Promise<ManagedController> {
    return new ManagedController(ctx, await ManagedStore.open(o.storeFile ?? ManagedStore.fileIn(ctx.workspaceRoot)), o);
  }

  get stopped(): boolean {
    return this.wake.stopped;
  }

  /**
   * Takes the store's controller lease (one controller per store: no job is run twice at
   * once) and resumes every unfinished job where the store says it is.
   */
  async start(): Promise<void> {
    if (this.started) return;
    await this.lease.acquire();
    this.started = true;
    await this.scan();
    await this.sweep();
    this.scanning = this.scanLoop();
  }

  /** Copies of files no job with work left needs (carryFiles.ts); fs ages, so the wall clock. */
  private async sweep(): Promise<void> {
    try {
      const { jobs, refused } = await this.store.read((db) => listJobs(db));
      const removed = sweepUploads(jobs.map((j) => ({ uploads: j.uploads, active: hasWork(j) })), this.ctx.workspaceRoot, Date.now(), refused.length > 0);
      for (const dir of removed) this.log(`removed ${dir}: no unfinished managed job uses these files`);
      this.sweptAt = Date.now();
    } catch (e) {
      this.log(`sweeping managed-job uploads: ${(e as Error).message}`);
    }
  }

  /** Records a new PENDING job and starts it at once; returns its id. */
  async submit(req: SubmitRequest): Promise<number> {
    const envs = req.envs ?? {};
    const firstName = checkSubmit(req.tasks, envs);
    const serving = this.started && !this.stopped;
    // A running controller records the job and its start (PENDING → STARTING, naming its first
    // cluster) in one save: one fsync fewer between submit and the cloud's create.
    const id = await this.store.write((db) => {
      refuseIfSealed(this.store.file, Date.now());
      const now = this.now();
      const jid = insertJob(db, { name: jobNameOf(req.name ?? firstName), tasks: req.tasks, envs, now, creator: thisCreator() });
      if (serving) {
        const m = startMove(getJob(db, jid)!, now);
        moveJob(db, jid, 'STARTING', m.reason, now, m.patch);
      }
      return jid;
    });
    if (serving) this.spawn(id);
    return id;
  }

  /** Asks for a job's cancel (recorded first); false if it is unknown or already ended. */
  async cancel(id: number): Promise<boolean> {
    const ok = await this.store.write((db) => requestCancel(db, id, this.now()));
    if (ok) this.wake.interrupt(id);
    return ok;
  }

  list(): Promise<JobListing> {
    return this.store.read((db) => listJobs(db));
  }

  events(id: number): Promise<ManagedEvent[]> {
    return this.store.read((db) => listManagedEvents(db, id));
  }

  /** Resolves once no job has work left (every job ended and its cluster torn down). */
  async whenIdle(): Promise<void> {
    while (this.workers.size && !this.stopped) await Promise.all([...this.workers.values()]);
  }

  /** Stops stepping (in-flight launches are aborted, nothing further is recorded), frees the lease. */
  async stop(): Promise<void> {
    this.wake.stop();
    await Promise.allSettled([...this.workers.values(), this.scanning]);
    if (this.started) this.lease.release();
    this.store.close();
  }

  // ControllerCore, for steps.ts.
  now(): number {
    return this.clock.now();
  }

  log(message: string): void {
    this.say(message);
  }

  get(id: number): Promise<ManagedJob | undefined> {
    return this.store.read((db) => getJob(db, id));
  }

  move(id: number, to: ManagedStatus, reason: string, patch: JobPatch = {}): Promise<ManagedJob> {
    return this.store.write((db) => moveJob(db, id, to, reason, this.now(), patch));
  }

  async patch(id: number, patch: JobPatch): Promise<void> {
    await this.store.write((db) => patchJob(db, id, patch, this.now()));
  }

  nap(id: number, ms: number): Promise<void> {
    return this.wake.nap(id, ms);
  }

  signalFor(id: number): AbortSignal {
    return this.wake.signalFor(id);
  }

  launchSlot(signal: AbortSignal): LaunchSlot {
    return new LaunchSlot(this.slots, signal);
  }

  launchFailed(id: number): number {
    const n = (this.failures.get(id) ?? 0) + 1;
    this.failures.set(id, n);
    return n;
  }

  private spawn(id: number): void {
    if (this.workers.has(id)) return;
    const w = driveJob(this, id).catch((e: Error) => this.log(`managed job ${id}: ${e.message}`)).finally(() => {
      this.workers.delete(id);
      this.wake.forget(id);
    });
    this.workers.set(id, w);
  }

  /** Jobs written by another process (a CLI submit or cancel) are picked up here. */
  private async scan(): Promise<void> {
    const { jobs, refused } = await this.store.read((db) => listJobs(db, UNFINISHED));
    for (const r of refused) this.ctx.warn(`managed job ${String(r.id)} is not acted on: its row is damaged (${r.problem})`);
    for (const j of jobs) {
      if (j.cancelRequested && this.workers.has(j.id) && !this.wake.isInterrupted(j.id)) this.wake.interrupt(j.id);
      this.spawn(j.id);
    }
  }

  private async scanLoop(): Promise<void> {
    while (!this.stopped) {
      await this.wake.sleep(this.opts.pollMs);
      if (this.stopped) return;
      await this.scan().catch((e: Error) => this.log(`managed jobs scan: ${e.message}`));
      // A controller that serves for days sweeps orphaned copies hourly, not only at its start.
      if (Date.now() - this.sweptAt > 60 * 60_000) await this.sweep();
    }
  }
}
