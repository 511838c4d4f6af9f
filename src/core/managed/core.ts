// What a job's state machine (steps.ts) needs of the controller that runs it.
import type { OpsContext } from '../ops';
import type { JobPatch, ManagedJob } from './jobRows';
import type { ManagedStatus } from './states';

export interface ControllerOptions {
  /** Between looks at a running job, and the base of error back-off (clock ms). Default 5000. */
  pollMs: number;
  /** Cluster launches in flight at once, over all jobs (each mostly waits on the cloud). Default 64. */
  maxParallelLaunches: number;
  /** Failed launches of one cluster before the job is FAILED_NO_RESOURCE. Default 3. */
  launchRetries: number;
  /** Unexpected errors in a row before the job is FAILED_CONTROLLER. Default 8. */
  maxErrors: number;
}

export interface ControllerCore {
  readonly ctx: OpsContext;
  readonly opts: ControllerOptions;
  readonly stopped: boolean;
  now(): number;
  log(message: string): void;
  get(id: number): Promise<ManagedJob | undefined>;
  /** A checked status move, recorded with its reason (store first, then act). */
  move(id: number, to: ManagedStatus, reason: string, patch?: JobPatch): Promise<ManagedJob>;
  patch(id: number, patch: JobPatch): Promise<void>;
  /** Waits `ms` of clock time; a cancel of the job or the controller's stop ends it early. */
  nap(id: number, ms: number): Promise<void>;
  /** Aborted when the job is cancelled or the controller stops: passed to launches. */
  signalFor(id: number): AbortSignal;
  /** Runs a launch when a slot is free (maxParallelLaunches). */
  withLaunchSlot<T>(fn: () => Promise<T>): Promise<T>;
  /** Counts a failed launch of the job; returns the count so far. */
  launchFailed(id: number): number;
}
