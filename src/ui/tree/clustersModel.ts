import type { ClusterRecord } from '../../core/state';
import type { JobRow } from '../../core/jobs';
import type { BucketListing } from '../../core/ops/storageListing';
import { LeaksModel } from './leaksModel';
import { StorageModel } from './storageModel';
import { ManagedJobsModel } from './managedJobsModel';
import type { ManagedJobsListing } from '../../core/managed/jobViews';
import type { CostView, ClusterCostText } from '../../core/cost/costView';
import type { JobEnd, JobEvents } from '../jobEvents';
import { EndedJobs, endedRow, isTerminal, newlyEnded } from './endedJobs';

/** Where the model gets its data; the extension passes state + ops.queue, tests pass fakes. */
export interface ClustersSource {
  listClusters(): Promise<ClusterRecord[]>;
  /** The cluster's job queue from its agent. */
  queue(cluster: string): Promise<JobRow[]>;
  /** Buckets Skydeck created (the Storage section); absent: the section never shows. */
  listBuckets?(): Promise<BucketListing[]>;
  /** Managed jobs of the controller (the Managed jobs section); absent: the section never shows. */
  listManagedJobs?(): Promise<ManagedJobsListing>;
  /** Rates and spend (cost/costView.ts); absent: no cost is shown. */
  costs?(): Promise<CostView>;
}

/**
 * The data behind the Clusters view, kept apart from the TreeDataProvider that draws it (and
 * free of `vscode`, so it is unit-tested in plain Node). It holds the clusters, each UP
 * cluster's jobs (newest first) and the last error from asking each cluster's agent.
 */
export class ClustersModel {
  private clusters: ClusterRecord[] = [];
  private readonly jobs = new Map<string, JobRow[]>();
  private readonly errors = new Map<string, string>();
  private readonly listeners = new Set<() => void>();
  private inFlight: Promise<void> | undefined;
  private again = false;
  /** The last leak sweep ("Leaked instances" node); set by Find Leaked Instances, not by reload. */
  readonly leaks = new LeaksModel(() => this.notify());
  /** Buckets Skydeck created ("Storage" node), reloaded with the clusters. */
  readonly storage = new StorageModel(() => this.notify());
  /** Managed jobs ("Managed jobs" node), reloaded with the clusters. */
  readonly managed = new ManagedJobsModel();
  private readonly ended = new EndedJobs();

  /**
   * With `events`, a job end anyone in the window learns is shown at once (applyEnd), and an end
   * a reload finds (RUNNING before, ended now) is published for the others (the notifier).
   */
  constructor(private readonly source: ClustersSource, private readonly events?: JobEvents) {
    events?.onEnd((e) => this.applyEnd(e));
  }

  /** Shows a job's end now, without asking the agent; later queue answers cannot undo it. */
  applyEnd(end: JobEnd): void {
    const c = this.cluster(end.cluster);
    if (!c || !isTerminal(end.status)) return;
    this.ended.record(c.uid, end);
    const rows = this.jobs.get(c.name);
    const i = rows?.findIndex((j) => j.job_id === end.jobId) ?? -1;
    if (!rows || i < 0 || isTerminal(rows[i].status)) return;
    this.jobs.set(c.name, rows.map((r, k) => (k === i ? endedRow(r, end, Date.now() / 1000) : r)));
    this.notify();
  }

  /**
   * Re-reads the clusters and asks every UP cluster for its queue, in parallel: one slow or
   * failing agent delays nobody else's jobs and its error lands on its own node. Calls made
   * while a reload runs are folded into one more reload after it, so a burst of refreshes
   * (poll + command + visibility) costs at most two round-trips.
   */
  reload(): Promise<void> {
    if (this.inFlight) {
      this.again = true;
      return this.inFlight;
    }
    this.inFlight = (async () => {
      try {
        do {
          this.again = false;
          await this.reloadOnce();
        } while (this.again);
      } finally {
        this.inFlight = undefined;
      }
    })();
    return this.inFlight;
  }

  private async reloadOnce(): Promise<void> {
    const clusters = await this.source.listClusters();
    const names = new Set(clusters.map((c) => c.name));
    const learned: JobEnd[] = [];
    await Promise.all([
      this.reloadBuckets(),
      this.reloadManaged(),
      this.reloadCosts(),
      ...clusters.map(async (c) => {
        if (c.status !== 'UP') {
          this.jobs.delete(c.name);
          this.errors.delete(c.name);
          return;
        }
        try {
          const rows = this.ended.apply(c.uid, await this.source.queue(c.name), Date.now() / 1000);
          const before = this.cluster(c.name)?.uid === c.uid ? this.jobs.get(c.name) : undefined;
          learned.push(...newlyEnded(c.name, before, rows));
          this.jobs.set(c.name, [...rows].sort((a, b) => b.job_id - a.job_id));
          this.errors.delete(c.name);
        } catch (e) {
          // Keep the last jobs we saw: a dropped connection should not empty the tree.
          this.errors.set(c.name, (e as Error).message);
        }
      }),
    ]);
    for (const n of [...this.jobs.keys()]) if (!names.has(n)) this.jobs.delete(n);
    for (const n of [...this.errors.keys()]) if (!names.has(n)) this.errors.delete(n);
    this.ended.keepOnly(new Set(clusters.map((c) => c.uid)));
    this.clusters = clusters;
    this.notify();
    for (const e of learned) this.events?.publish(e);
  }

  private costs: CostView | undefined;

  /** Cost is a hint: a failure leaves the last figures and never fails the reload. */
  private async reloadCosts(): Promise<void> {
    if (!this.source.costs) return;
    try {
      this.costs = await this.source.costs();
    } catch {
      // The next reload tries again.
    }
  }

  /** This cluster's $/h and spend, if known. */
  costOf(uid: string): ClusterCostText | undefined {
    return this.costs?.byUid[uid];
  }

  /** The workspace's total $/h and what other folders bill. */
  get cost(): CostView | undefined {
    return this.costs;
  }

  /** A failed listing is shown on the Storage node; it never fails the clusters' reload. */
  private async reloadBuckets(): Promise<void> {
    if (!this.source.listBuckets) return;
    try {
      this.storage.set(await this.source.listBuckets());
    } catch (e) {
      this.storage.failed((e as Error).message);
    }
  }

  /** Like the buckets: a failed listing shows on the section, never fails the reload. */
  private async reloadManaged(): Promise<void> {
    if (!this.source.listManagedJobs) return;
    try {
      this.managed.set(await this.source.listManagedJobs());
    } catch (e) {
      this.managed.failed((e as Error).message);
    }
  }

  private notify(): void {
    for (const l of this.listeners) l();
  }

  /** Called after every reload; returns an unsubscribe function. */
  onDidChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get all(): readonly ClusterRecord[] {
    return this.clusters;
  }

  cluster(name: string): ClusterRecord | undefined {
    return this.clusters.find((c) => c.name === name);
  }

  /** Newest first. */
  jobsOf(cluster: string): readonly JobRow[] {
    return this.jobs.get(cluster) ?? [];
  }

  job(cluster: string, jobId: number): JobRow | undefined {
    return this.jobsOf(cluster).find((j) => j.job_id === jobId);
  }

  /** Why the cluster's agent could not be asked on the last reload. */
  errorOf(cluster: string): string | undefined {
    return this.errors.get(cluster);
  }

  /** For the status bar: clusters UP and jobs RUNNING across them. */
  get counts(): { up: number; running: number; clusters: number } {
    const up = this.clusters.filter((c) => c.status === 'UP');
    const running = up.reduce((n, c) => n + this.jobsOf(c.name).filter((j) => j.status === 'RUNNING').length, 0);
    return { up: up.length, running, clusters: this.clusters.length };
  }
}
