// What a job's state machine (steps.ts) needs of the controller that runs it.
import type { OpsContext } from '../ops';
import type { JobPatch, ManagedJob } from './jobRows';
import type { ManagedStatus } from './states';
import type { LaunchSlot } from './slots';
import type { CloudPoll } from './cloudPoll';

export interface ControllerOptions {
  /** Between looks at a running job, and the base of error back-off (clock ms). Default 5000. */
  pollMs: number;
  /** Launches in their head's setup at once, over all jobs (creating instances takes no slot). Default 64. */
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
  /** One shared listing per cloud and account per poll, for watching running jobs. */
  readonly cloudPoll: CloudPoll;
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
  /** The launch's slot for its head's setup (maxParallelLaunches), taken on first need. */
  launchSlot(signal: AbortSignal): LaunchSlot;
  /** Counts a failed launch of the job; returns the count so far. */
  launchFailed(id: number): number;
}
