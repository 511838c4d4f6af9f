import type { AgentClient, JobSpec, LogsFinal } from '../jobs';
import { AgentError } from '../jobs';
import { OpsError } from './errors';
import { trace } from '../util/trace';

export interface FollowOptions {
  /** Receives the job's output bytes as they come. */
  onOutput?(data: Buffer): void;
  /** Aborting stops following; the job keeps running (Ctrl-C detaches, as in SkyPilot). */
  signal?: AbortSignal;
  onReconnect?(e: Error): void;
  /** Called once the job is queued, before any output is streamed. */
  onSubmitted?(jobId: number, cluster: string): void;
}

export interface JobOutcome {
  jobId: number;
  /** Undefined when not followed, or when following was stopped before the job ended. */
  final?: LogsFinal;
}

export async function submitJob(client: AgentClient, spec: JobSpec): Promise<number> {
  try {
    return (await client.submit(spec)).job_id;
  } catch (e) {
    if (e instanceof AgentError) throw new OpsError(e.code === 'unschedulable' || e.code === 'invalid_spec' ? 'usage' : 'failed', e.message);
    throw e;
  }
}

export async function followJob(client: AgentClient, jobId: number, f: FollowOptions, offset = 0): Promise<LogsFinal | undefined> {
  let first = true;
  return client.followLogs(jobId, (d) => {
    if (first) { first = false; trace('exec: first output'); }
    f.onOutput?.(d);
  }, { offset, signal: f.signal, onReconnect: f.onReconnect });
}
