// `skydeck storage delete NAME`: NAME is typed by the user but is not a bucket name until checked.
// @google-cloud/storage puts a bucket name into the request path unencoded (service-object.js
// joins baseUrl '/b' and the id), so "b/o/k" addressed object k of bucket b: the existence check
// said "exists" and --force went on to delete it as a bucket (it stopped only because listing
// "its" objects failed).
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { randomUUID } from 'node:crypto';
import { storageDelete } from '../../../src/cli/commands/storageDelete';
import type { CliIO } from '../../../src/cli/io';
import type { OpsContext } from '../../../src/core/ops';
import { StateStore } from '../../../src/core/state';
import { GcsBucketStore } from '../../../src/core/storage/buckets/gcs';
import { BUCKET_TAGS } from '../../../src/core/storage/buckets/types';
import { GcsFake } from '../../support/fakes/gcsFake/server';
import { fixedTokenClient as tokenClient } from '../../support/fakes/gcsFake/auth';

describe('storage delete: a NAME that is not a bucket name never reaches the store', function () {
  this.timeout(60_000);
  let fake: GcsFake;
  let root: string;
  before(async () => { fake = await new GcsFake().start(); });
  after(async () => { await fake?.stop(); });
  beforeEach(() => { root = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-sdname-')); });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  it('"bucket/o/object" with --force is refused as a name; the object stays', async () => {
    const gcs = () => new GcsBucketStore({ projectId: 'skydeck-test', apiEndpoint: fake.endpoint, authClient: tokenClient() });
    await gcs().create('victim', { [BUCKET_TAGS.uid]: randomUUID() });
    const file = path.join(root, 'keep.txt');
    fs.writeFileSync(file, 'keep me\n');
    await gcs().upload('victim', new Map([[file, 'keep.txt']]));
    const store = await StateStore.openWorkspace(root);
    const out: string[] = [];
    const io: CliIO = { out: (t) => out.push(t), outBytes: () => undefined, err: (t) => out.push(t) };
    const ctx = { store, workspaceRoot: root, bucketStores: { gcs }, progress: () => undefined, log: () => undefined, warn: () => undefined } as unknown as OpsContext;
    try {
      await assert.rejects(storageDelete(io, ctx, 'victim/o/keep.txt', { store: 'gcs', force: true, yes: true }), /is not a valid gcs bucket name|may hold only/);
    } finally {
      store.close();
    }
    assert.equal((await gcs().upload('victim', new Map([[file, 'keep.txt']]))).unchanged, 1, 'the object is still there');
  });
});
