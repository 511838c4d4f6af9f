// One place the extension says "job X on cluster C ended with status S". Whoever learns it first
// (a log panel's follow, the watch on a job launched here, a cancel, a poll) publishes; the
// Clusters model applies it to its rows (and so the tree and the status bar change at once) and
// the job-end notifier tells the user. No vscode here: the model's unit tests use it as it is.
//
// The shell (dist/extension.js) makes the one instance and hands it to the core chunk's
// commands and to the log panels: each bundle has its own copy of this class, never of the hub.

/** Who learned of the end: a cancel from this window is said by the cancel command itself. */
export type JobEndSource = 'log' | 'watch' | 'cancel' | 'poll';

export interface JobEnd {
  cluster: string;
  jobId: number;
  /** A terminal status (SUCCEEDED, FAILED, FAILED_SETUP, FAILED_DRIVER, CANCELLED). */
  status: string;
  exitCode: number | null;
  reason: string | null;
  /** Epoch seconds, when known. */
  endedAt?: number | null;
  source: JobEndSource;
}

/** A job started by Launch/Exec in this window: what a Re-run repeats. */
export interface LaunchedJob {
  cluster: string;
  jobId: number;
  /** The task file's path (Re-run execs it again on the same cluster). */
  taskFile: string;
  name?: string;
}

import type { WorkdirMap } from './logs/traceback';

type Listener<T> = (value: T) => void;

export class JobEvents {
  private readonly endListeners = new Set<Listener<JobEnd>>();
  private readonly launchedHere = new Map<string, LaunchedJob>();
  private readonly aborter = new AbortController();
  /** Kept after the end (a failed job's traceback is read then); the oldest go past a bound. */
  private readonly workdirs = new Map<string, WorkdirMap>();

  /** Aborted when the window goes: watches of launched jobs stop. */
  get signal(): AbortSignal {
    return this.aborter.signal;
  }

  publish(end: JobEnd): void {
    for (const l of [...this.endListeners]) {
      try {
        l(end);
      } catch {
        // One listener's failure must not keep the others (tree, status bar, notifier) stale.
      }
    }
  }

  onEnd(listener: Listener<JobEnd>): () => void {
    this.endListeners.add(listener);
    return () => this.endListeners.delete(listener);
  }

  /** Launch/Exec of this window submitted a job. */
  launched(job: LaunchedJob): void {
    // Jobs whose end is never learned (their cluster went down) must not pile up for ever.
    if (this.launchedHere.size >= 1000) this.launchedHere.delete(this.launchedHere.keys().next().value as string);
    this.launchedHere.set(jobKey(job.cluster, job.jobId), job);
  }

  launchedJob(cluster: string, jobId: number): LaunchedJob | undefined {
    return this.launchedHere.get(jobKey(cluster, jobId));
  }

  /** Forgets a launched job (its end was told): a later job with the same id is not taken for it. */
  forget(cluster: string, jobId: number): void {
    this.launchedHere.delete(jobKey(cluster, jobId));
  }

  /** Where the job's workdir is on the node and here (traceback links in its log panel). */
  setWorkdir(cluster: string, jobId: number, map: WorkdirMap): void {
    if (this.workdirs.size >= 1000) this.workdirs.delete(this.workdirs.keys().next().value as string);
    this.workdirs.set(jobKey(cluster, jobId), map);
  }

  workdirOf(cluster: string, jobId: number): WorkdirMap | undefined {
    return this.workdirs.get(jobKey(cluster, jobId));
  }

  dispose(): void {
    this.aborter.abort();
    this.endListeners.clear();
  }
}

export function jobKey(cluster: string, jobId: number): string {
  return `${cluster}\u0000${jobId}`;
}
