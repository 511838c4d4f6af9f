// The buckets a managed job names, which a cloud controller VM's own identity is widened to
// (src/core/managed/remote/controllerBuckets.ts); the grant itself is tested against moto.
import assert from 'node:assert/strict';
import { bucketAccessOf } from '../../../src/core/managed/remote/controllerBuckets';

describe('managed jobs: the buckets a cloud controller is allowed', () => {
  it('URL and named S3 buckets of every task, once each, with env references filled; other stores and local files are not S3', () => {
    const tasks = [
      'envs: {B: null}\nfile_mounts:\n  /in: s3://$B/data\n  /out: {name: out-bkt, store: s3}\n  /g: gs://gcs-bkt\n  /local: ./here\nrun: ls\n',
      'file_mounts:\n  /again: s3://in-bkt/data\n  /whole: s3://in-bkt\nrun: ls\n',
      'run: echo none\n',
    ];
    assert.deepEqual(bucketAccessOf('s3', tasks, { B: 'in-bkt' }), [
      { store: 's3', bucket: 'in-bkt', prefix: 'data' }, { store: 's3', bucket: 'out-bkt', manage: true }, { store: 's3', bucket: 'in-bkt' },
    ]);
    assert.deepEqual(bucketAccessOf('s3', ['resources: {cloud: gcp}\nfile_mounts:\n  /x: {name: gcs-made, store: gcs}\nrun: ls\n'], {}), []);
  });

  it('on GCP the GCS buckets; on Azure the Blob containers given by URL (with their storage account) and by name (in AZURE_STORAGE_ACCOUNT, which must exist)', () => {
    const tasks = ['file_mounts:\n  /g: gs://gcs-bkt/p\n  /n: {name: gcs-made, store: gcs}\n  /s: s3://not-this\n  /a: https://acct1.blob.core.windows.net/cont/sub\n  /an: {name: az-named, store: azure}\nrun: ls\n'];
    assert.deepEqual(bucketAccessOf('gcs', tasks, {}, undefined), [{ store: 'gcs', bucket: 'gcs-bkt', prefix: 'p' }, { store: 'gcs', bucket: 'gcs-made' }]);
    assert.deepEqual(bucketAccessOf('azure', tasks, {}, 'acct2'), [
      { store: 'azure', bucket: 'cont', prefix: 'sub', account: 'acct1' }, { store: 'azure', bucket: 'az-named', account: 'acct2', mustExist: true }]);
  });

  it('an Azure container given by name with no storage account known on this machine: refused, saying how to fix', () => {
    const tasks = ['file_mounts:\n  /an: {name: az-named, store: azure}\nrun: ls\n'];
    assert.throws(() => bucketAccessOf('azure', tasks, {}, undefined), (e: Error) => /Azure container az-named is given by name/.test(e.message) && /set AZURE_STORAGE_ACCOUNT/.test(e.message));
  });
});
