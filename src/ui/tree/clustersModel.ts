import type { ClusterRecord, StateStore } from '../../core/state';
import { listClusters } from '../../core/state';

/** The data behind the Clusters view, kept apart from the TreeDataProvider that draws it. */
export class ClustersModel {
  private clusters: ClusterRecord[] = [];

  constructor(private readonly store: () => Promise<StateStore>) {}

  async reload(): Promise<void> {
    this.clusters = await (await this.store()).read((db) => listClusters(db));
  }

  get all(): readonly ClusterRecord[] {
    return this.clusters;
  }
}
