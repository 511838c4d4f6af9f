// Bad bucket file_mounts and git workdirs, each with the exact diagnostic expected (position,
// field path, message and fix). Rules: SkyPilot's storage checks (how name, source, store and
// mode combine) and its git URL forms; bad URLs and names are in invalidBucketUrlCases.ts.

import assert from 'node:assert/strict';
import { bucketUrlCases } from './invalidBucketUrlCases';
import { InvalidCase, checkCases } from './invalidHarness';

const cases: InvalidCase[] = [
  ...bucketUrlCases,
  {
    name: 'new bucket name invalid for the task cloud store',
    text: 'resources: {cloud: azure}\nfile_mounts:\n  /data: {name: my_ckpt}\n',
    expect: [
      ['error', 3, 17, 'file_mounts["/data"].name', '"my_ckpt" is not a valid Azure container name: it may hold only lowercase letters, digits and hyphens', 'did you mean "my-ckpt"? Azure container names are 3-63 characters of a-z, 0-9 and "-", starting and ending with a letter or digit, without "--"'],
    ],
  },
  {
    name: 'mode typo',
    text: 'file_mounts:\n  /data:\n    source: s3://my-bucket\n    mode: MOUNTED\n',
    expect: [
      ['error', 4, 11, 'file_mounts["/data"].mode', 'file_mounts["/data"].mode must be one of MOUNT, COPY, MOUNT_CACHED, got "MOUNTED"', 'did you mean "MOUNT"?'],
    ],
  },
  {
    name: 'mode typo COPPY',
    text: 'file_mounts:\n  /data: {source: s3://my-bucket, mode: COPPY}\n',
    expect: [
      ['error', 2, 41, 'file_mounts["/data"].mode', 'file_mounts["/data"].mode must be one of MOUNT, COPY, MOUNT_CACHED, got "COPPY"', 'did you mean "COPY"?'],
    ],
  },
  {
    name: 'store typo',
    text: 'file_mounts:\n  /data: {name: my-bucket, store: gsc}\n',
    expect: [
      ['error', 2, 35, 'file_mounts["/data"].store', 'file_mounts["/data"].store must be one of S3, GCS, AZURE, R2, IBM, OCI, NEBIUS, COREWEAVE, VASTDATA, VOLUME, got "gsc"', 'did you mean "GCS"?'],
    ],
  },
  {
    name: 'store disagreeing with the source URL',
    text: 'file_mounts:\n  /data:\n    source: gs://my-bucket\n    store: s3\n',
    expect: [
      ['error', 4, 12, 'file_mounts["/data"].store', 'file_mounts["/data"].store is s3, but the source is a GCS bucket URL', 'remove store: since a bucket URL names its store, or fix the URL'],
    ],
  },
  {
    name: 'name together with a bucket URL source',
    text: 'file_mounts:\n  /data:\n    name: my-copy\n    source: s3://my-bucket\n',
    expect: [
      ['error', 3, 11, 'file_mounts["/data"].name', 'file_mounts["/data"] gives both a bucket URL source and name: "my-copy"', 'which did you mean? To use the existing bucket, remove name:; to create bucket "my-copy" and upload into it, make source: a local directory'],
    ],
  },
  {
    name: 'name that is a URL',
    text: 'file_mounts:\n  /data:\n    name: s3://my-bucket\n    store: s3\n',
    expect: [
      ['error', 3, 11, 'file_mounts["/data"].name', 'file_mounts["/data"].name is a bucket name, not a URL', 'to use an existing bucket write source: s3://my-bucket; to create one write its bare name, e.g. name: my-bucket with store:'],
    ],
  },
  {
    name: 'local source without a name',
    text: 'file_mounts:\n  /data:\n    source: ./data\n    mode: COPY\n',
    expect: [
      ['error', 2, 3, 'file_mounts["/data"]', 'file_mounts["/data"] has a local source but no bucket name to upload it into', 'add name: <new-bucket> to upload through a bucket, or copy straight to the node with /data: ./data'],
    ],
  },
  {
    name: 'new bucket in COPY mode with nothing to copy',
    text: 'file_mounts:\n  /data: {name: my-bucket, store: s3, mode: COPY}\n',
    expect: [
      ['error', 2, 45, 'file_mounts["/data"].mode', 'file_mounts["/data"]: mode COPY needs a source; a new bucket "my-bucket" would be empty', 'give source: a local directory to upload, use mode: MOUNT for an empty bucket to write into, or source: <bucket URL> for an existing bucket'],
    ],
  },
  {
    name: 'new bucket with no store and no cloud',
    text: 'file_mounts:\n  /data:\n    name: my-bucket\n',
    expect: [
      ['error', 2, 3, 'file_mounts["/data"]', 'file_mounts["/data"] does not say which store bucket "my-bucket" is in, and the task names no cloud', 'add store: s3, gcs, azure or r2'],
    ],
  },
  {
    name: 'new bucket with no store on ssh',
    text: 'resources: {infra: ssh/lab}\nfile_mounts:\n  /data: {name: my-bucket}\n',
    expect: [
      ['error', 3, 3, 'file_mounts["/data"]', 'file_mounts["/data"] does not say which store bucket "my-bucket" is in, and the task\'s cloud "ssh" has no object store Skydeck uses', 'add store: s3, gcs, azure or r2'],
    ],
  },
  {
    name: 'new bucket with no store and candidates on two clouds',
    text: 'resources:\n  ordered: [{cloud: aws}, {cloud: gcp}]\nfile_mounts:\n  /data: {name: my-bucket}\n',
    expect: [
      ['error', 4, 3, 'file_mounts["/data"]', 'file_mounts["/data"] does not say which store bucket "my-bucket" is in, and the task\'s candidates use several clouds (aws, gcp)', 'add store: s3, gcs, azure or r2'],
    ],
  },
  {
    name: 'local source ending in a slash',
    text: 'file_mounts:\n  /data: {name: my-bucket, store: s3, source: ./data/}\n',
    expect: [
      ['error', 2, 47, 'file_mounts["/data"].source', 'file_mounts["/data"].source ends with "/"', 'write it without the trailing slash: ./data'],
    ],
  },
  {
    name: 'URL in a list source',
    text: 'file_mounts:\n  /data: {name: my-bucket, store: s3, source: [./a, s3://b1]}\n',
    expect: [
      ['error', 2, 53, 'file_mounts["/data"].source[1]', 'file_mounts["/data"].source[1]: a list source holds local paths only, got a URL', 'mount each bucket at its own destination'],
    ],
  },
  {
    name: 'list source with the same base name twice',
    text: 'file_mounts:\n  /data: {name: my-bucket, store: s3, source: [./x/a.txt, ./y/a.txt]}\n',
    expect: [
      ['error', 2, 59, 'file_mounts["/data"].source[1]', 'file_mounts["/data"].source[1]: "a.txt" is also the name of item 0; both would land at the bucket root', 'rename one, or mount them in separate buckets'],
    ],
  },
  {
    name: 'git workdir URL that is a local path',
    text: 'workdir:\n  url: ./src\n',
    expect: [
      ['error', 2, 8, 'workdir.url', 'workdir.url is not a git URL Skydeck can clone', 'write https://host/owner/repo(.git), ssh://git@host/owner/repo or git@host:owner/repo; for a local directory write workdir: <path>'],
    ],
  },
  {
    name: 'git workdir URL starting with a dash',
    text: 'workdir: {url: "-uhttps://x/y"}\n',
    expect: [
      ['error', 1, 16, 'workdir.url', 'workdir.url starts with "-"', 'write https://host/owner/repo(.git), ssh://git@host/owner/repo or git@host:owner/repo; for a local directory write workdir: <path>'],
    ],
  },
  {
    name: 'git workdir ref with ..',
    text: 'workdir:\n  url: https://github.com/o/r.git\n  ref: main..dev\n',
    expect: [
      ['error', 3, 8, 'workdir.ref', 'workdir.ref contains ".."', 'give a branch (main), a tag (v1.2.0) or a commit hash'],
    ],
  },
  {
    name: 'git workdir ref starting with a dash',
    text: 'workdir:\n  url: https://github.com/o/r.git\n  ref: --upload-pack=x\n',
    expect: [
      ['error', 3, 8, 'workdir.ref', 'workdir.ref starts with "-"', 'give a branch (main), a tag (v1.2.0) or a commit hash'],
    ],
  },
];

describe('task YAML: invalid bucket mounts and git workdirs', () => {
  it('every case expects exactly one error', () => {
    for (const c of cases) assert.deepEqual(c.expect.map((e) => e[0]), ['error'], c.name);
  });
  checkCases(cases);
});
