// What the CLI and the editor need from a managed-jobs controller, wherever it runs: on this
// machine (localClient.ts) or on a controller cluster reached through its agent connection.
// Callers never open the store themselves, so moving the controller changes one factory.
import type { JobListing, ManagedEvent, ManagedJob } from './jobRows';
import type { KeptFrom } from './keptLogs';

export interface ManagedSubmit {
  /** Task YAML texts, run in order (a pipeline: one per document). */
  tasks: string[];
  name?: string;
  envs?: Record<string, string>;
  /**
   * The folder the tasks' relative local paths resolve against (the CLI's working directory,
   * the editor's workspace folder). Given: those files are copied to the controller and the
   * tasks name the copies (carryFiles.ts). Absent: the tasks are recorded as they are (a
   * controller's own submit, whose tasks were rewritten by the client that sent them).
   */
  base?: string;
  /** The token of copies already on the controller (a remote client sent them): recorded with the job. */
  uploads?: string;
}

export interface CancelOutcome {
  /** Cancel recorded: the controller tears their clusters down with proof. */
  requested: number[];
  /** Unknown ids, or jobs that had already ended. */
  skipped: number[];
}

export interface ControllerNote {
  /** Where the controller runs: 'this machine' or the controller cluster's name. */
  where: string;
  /** True if this call started it (it was not running). */
  started: boolean;
  /** Human-readable detail: pid and log file, or cluster and node. */
  detail: string;
}

export interface FollowIO {
  out(b: Buffer): void;
  err(b: Buffer): void;
}

export interface ManagedJobsClient {
  /** Records the job; makes sure a controller serves it. */
  submit(req: ManagedSubmit): Promise<{ id: number; controller: ControllerNote }>;
  list(): Promise<JobListing>;
  /** undefined: no such job (a damaged row throws, naming the problem). */
  job(id: number): Promise<ManagedJob | undefined>;
  events(id: number): Promise<ManagedEvent[]>;
  /** 'all' = every unfinished job. */
  cancel(ids: number[] | 'all'): Promise<CancelOutcome>;
  /**
   * The job's output kept by the controller from clusters already torn down (keptLogs.ts), a
   * marked line between clusters; undefined: none kept. `from`: only what a follow that read
   * that cluster up to that byte did not show. Optional: a controller that keeps none.
   */
  keptLog?(id: number, from?: KeptFrom): Promise<Buffer | undefined>;
  /** Lines of the controller's own log that mention the job. Optional, like keptLog. */
  controllerLog?(id: number): Promise<string[]>;
  /**
   * A controller elsewhere follows the job's output where its clusters are (their rows live
   * there): bytes as they come; resolves with the exit code. Absent: the caller follows itself.
   */
  follow?(id: number, io: FollowIO, signal?: AbortSignal): Promise<number>;
  close(): Promise<void>;
}
