// Skydeck's bucket tags in each store's naming rules: GCS labels (lowercase values, invalid
// refused) and Azure metadata (C# identifiers, mapped back on read).
import assert from 'node:assert/strict';
import { toLabels } from '../../../src/core/storage/buckets/gcs';
import { fromMetadata, toMetadata, UID_METADATA } from '../../../src/core/storage/buckets/azureNames';
import { BUCKET_TAGS } from '../../../src/core/storage/buckets/types';
import { StorageError } from '../../../src/core/storage/errors';

describe('storage/bucket tags per store', () => {
  it('GCS: BUCKET_TAGS keys are valid label keys; values are lowercased; invalid ones are refused, not mangled', () => {
    assert.deepEqual(toLabels('b', { [BUCKET_TAGS.uid]: 'AB-12', [BUCKET_TAGS.workspace]: 'ws_1' }), { [BUCKET_TAGS.uid]: 'ab-12', [BUCKET_TAGS.workspace]: 'ws_1' });
    assert.throws(() => toLabels('b', { [BUCKET_TAGS.workspace]: 'has space' }), (e: StorageError) => e.kind === 'config' && /gs:\/\/b/.test(e.message));
    assert.throws(() => toLabels('b', { '9key': 'v' }), StorageError);
    assert.throws(() => toLabels('b', { k: 'x'.repeat(64) }), StorageError);
  });

  it('Azure: dashes become underscores in metadata names and come back as the Skydeck keys', () => {
    const tags = { [BUCKET_TAGS.uid]: 'u-1', [BUCKET_TAGS.workspace]: 'W', team_name: 'ml' };
    const md = toMetadata('acct', 'ctr', tags);
    assert.deepEqual(md, { skydeck_bucket_uid: 'u-1', skydeck_workspace: 'W', team_name: 'ml' });
    assert.equal(UID_METADATA, 'skydeck_bucket_uid');
    // The service returns names lowercased; other names pass through as stored.
    assert.deepEqual(fromMetadata({ SKYDECK_BUCKET_UID: 'u-1', skydeck_workspace: 'W', team_name: 'ml' }), tags);
    assert.throws(() => toMetadata('acct', 'ctr', { '1bad': 'v' }), (e: StorageError) => e.kind === 'config' && /acct\.blob\.core\.windows\.net\/ctr/.test(e.message));
    assert.throws(() => toMetadata('acct', 'ctr', { k: 'café' }), /non-ASCII/);
  });
});
