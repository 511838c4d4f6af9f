import * as vscode from 'vscode';
import type { BucketListing } from '../../core/ops/storageListing';
import { bucketDescription, bucketTooltip } from './storageModel';

/** "Storage": buckets Skydeck created; shown while there are some (or their listing failed). */
export class StorageGroupNode extends vscode.TreeItem {
  readonly kind = 'storage';

  constructor(summary: string) {
    super('Storage', vscode.TreeItemCollapsibleState.Expanded);
    this.id = 'storage';
    this.iconPath = new vscode.ThemeIcon('database');
    this.description = summary;
    this.contextValue = 'storage';
    this.tooltip = 'Buckets Skydeck created for tasks\' file_mounts. Buckets named by URL are never listed here: Skydeck did not create them.';
  }
}

/** One bucket; its context menu has Delete Bucket. */
export class BucketNode extends vscode.TreeItem {
  readonly kind = 'bucket';

  constructor(readonly bucket: BucketListing) {
    super(bucket.name, vscode.TreeItemCollapsibleState.None);
    this.id = `bucket:${bucket.store}:${bucket.name}`;
    this.iconPath = bucket.problem
      ? new vscode.ThemeIcon('warning', new vscode.ThemeColor('list.warningForeground'))
      : new vscode.ThemeIcon('archive');
    this.description = bucketDescription(bucket);
    this.contextValue = `bucket:${bucket.persistent ? 'persistent' : 'temporary'}`;
    this.tooltip = bucketTooltip(bucket);
  }
}

/** The listing failed: the buckets are unknown, not none. */
export class StorageErrorNode extends vscode.TreeItem {
  readonly kind = 'storage-error';

  constructor(readonly message: string) {
    super('buckets: unknown', vscode.TreeItemCollapsibleState.None);
    this.id = 'storage-error';
    this.iconPath = new vscode.ThemeIcon('error', new vscode.ThemeColor('errorForeground'));
    this.description = message;
    this.contextValue = 'storage-error';
    this.tooltip = `Listing the buckets Skydeck created failed, so they are unknown (not none): ${message}`;
  }
}
