// What the editor's "Managed jobs" section shows of each job: its row plus what its current
// cluster costs per hour (clusters live in the controller's workspace state).
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { StateStore } from '../state';
import { storeFileOf } from './localHome';
import { readControllerSetting } from './remote/setting';
import { listClusters } from '../state';
import type { ManagedJobsClient } from './client';
import type { ManagedJob } from './jobRows';
import { clusterRate, type ClusterRate } from './jobCost';

export interface ManagedJobView {
  job: ManagedJob;
  rate: ClusterRate;
}

export interface ManagedJobsListing {
  jobs: ManagedJobView[];
  /** Damaged rows: listed so nothing is hidden. */
  refused: { id: string; problem: string }[];
}

/** `clusters`: the controller workspace's state (absent: no cluster is known, costs unknown). */
export async function managedJobViews(client: Pick<ManagedJobsClient, 'list'>, clusters?: StateStore, catalogDir?: string): Promise<ManagedJobsListing> {
  const listing = await client.list();
  const rows = clusters ? await clusters.read((db) => listClusters(db)) : [];
  const byName = new Map(rows.map((r) => [r.name, r]));
  return {
    jobs: listing.jobs.map((job) => {
      const row = job.clusterName ? byName.get(job.clusterName) : undefined;
      // Only the row of the uid the job recorded is its cluster (a name may be reused later).
      const mine = row && (!job.clusterUid || row.uid === job.clusterUid) ? row : undefined;
      return { job, rate: clusterRate(mine, catalogDir) };
    }),
    refused: listing.refused.map((r) => ({ id: String(r.id), problem: r.problem })),
  };
}

/**
 * The editor's listing: nothing is opened or created for a user who never submitted a managed
 * job (no store file yet), and the controller's cluster state only once it exists. With the
 * controller on a controller cluster the store is there: the client is asked (a look, which
 * launches nothing), and the job clusters' rows are there too, so costs are unknown here.
 */
export async function listManagedJobs(
  home: string, client: () => Promise<Pick<ManagedJobsClient, 'list'>>, clusters: () => Promise<StateStore>,
): Promise<ManagedJobsListing> {
  if (readControllerSetting().place.kind !== 'this-machine') return managedJobViews(await client());
  if (!fs.existsSync(storeFileOf(home))) return { jobs: [], refused: [] };
  const hasClusters = fs.existsSync(path.join(home, '.skydeck', 'state.db'));
  return managedJobViews(await client(), hasClusters ? await clusters() : undefined);
}
