// A look (queue, logs, cancel) when the controller cluster was never launched: no jobs, and no
// cluster launched just to say so. Only a submit launches the controller cluster.
import type { JobListing, ManagedEvent, ManagedJob } from '../jobRows';
import type { CancelOutcome, ControllerNote, ManagedJobsClient } from '../client';

export class AbsentControllerClient implements ManagedJobsClient {
  constructor(private readonly cluster: string) {}

  submit(): Promise<{ id: number; controller: ControllerNote }> {
    return Promise.reject(new Error(`the controller cluster ${this.cluster} is not launched; jobs launch launches it`));
  }

  async list(): Promise<JobListing> {
    return { jobs: [], refused: [] };
  }

  async job(): Promise<ManagedJob | undefined> {
    return undefined;
  }

  async events(): Promise<ManagedEvent[]> {
    return [];
  }

  async cancel(ids: number[] | 'all'): Promise<CancelOutcome> {
    return { requested: [], skipped: ids === 'all' ? [] : ids };
  }

  async close(): Promise<void> {}
}
