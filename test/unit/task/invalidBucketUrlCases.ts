// Bad bucket URLs and names in file_mounts, with the exact diagnostic expected (position, field
// path, message and fix). Naming rules: each store's (see src/core/task/bucketNames.ts).

import { InvalidCase } from './invalidHarness';

export const bucketUrlCases: InvalidCase[] = [
  {
    name: 'unknown scheme s4://',
    text: 'file_mounts:\n  /data: s4://my-bucket/x\n',
    expect: [
      ['error', 2, 10, 'file_mounts["/data"]', 'file_mounts["/data"]: unknown bucket URL scheme "s4://"', 'did you mean "s3://my-bucket/x"?'],
    ],
  },
  {
    name: 'unknown scheme ftp:// in a source mapping',
    text: 'file_mounts:\n  /data:\n    source: ftp://host/x\n',
    expect: [
      ['error', 3, 13, 'file_mounts["/data"].source', 'file_mounts["/data"].source: unknown bucket URL scheme "ftp://"', 'bucket URLs start with s3://, gs://, r2:// or https://<account>.blob.core.windows.net/<container>[/path]; a local path has no scheme'],
    ],
  },
  {
    name: 'gcs:// instead of gs://',
    text: 'file_mounts:\n  /data: gcs://my-bucket\n',
    expect: [
      ['error', 2, 10, 'file_mounts["/data"]', 'file_mounts["/data"]: unknown bucket URL scheme "gcs://"', 'did you mean "gs://my-bucket"?'],
    ],
  },
  {
    name: 'https URL that is not an Azure container',
    text: 'file_mounts:\n  /data: https://example.com/data\n',
    expect: [
      ['error', 2, 10, 'file_mounts["/data"]', 'file_mounts["/data"]: an https:// source must be an Azure Blob container URL', 'write https://<account>.blob.core.windows.net/<container>[/path]'],
    ],
  },
  {
    name: 'Azure URL without a container',
    text: 'file_mounts:\n  /data: https://acct01.blob.core.windows.net/\n',
    expect: [
      ['error', 2, 10, 'file_mounts["/data"]', 'file_mounts["/data"]: the URL names no container', 'write https://<account>.blob.core.windows.net/<container>[/path]'],
    ],
  },
  {
    name: 'Azure account name invalid',
    text: 'file_mounts:\n  /data: https://My_Account.blob.core.windows.net/c1\n',
    expect: [
      ['error', 2, 10, 'file_mounts["/data"]', 'file_mounts["/data"]: the Azure storage account "My_Account" may hold only lowercase letters and digits', 'Azure storage account names are 3-24 characters of a-z and 0-9'],
    ],
  },
  {
    name: 'Azure container name invalid',
    text: 'file_mounts:\n  /data: https://acct01.blob.core.windows.net/a--b\n',
    expect: [
      ['error', 2, 10, 'file_mounts["/data"]', 'file_mounts["/data"]: "a--b" is not a valid Azure container name: it must not contain two hyphens in a row', 'did you mean "a-b"? Azure container names are 3-63 characters of a-z, 0-9 and "-", starting and ending with a letter or digit, without "--"'],
    ],
  },
  {
    // Issue 16: the prefix is recorded with the cluster and reaches IAM documents; a control
    // character there is refused where it is written, not at down (a refused row cannot be downed).
    name: 'bucket URL with a control character in its path',
    text: 'file_mounts:\n  /data: "s3://my-bucket/x\\u0001y"\n',
    expect: [
      ['error', 2, 10, 'file_mounts["/data"]', 'file_mounts["/data"]: a bucket URL may not contain control characters', 'write the bucket and path in printable characters'],
    ],
  },
  {
    name: 'bucket URL with a query string',
    text: 'file_mounts:\n  /data: "s3://my-bucket/x?token=abc"\n',
    expect: [
      ['error', 2, 10, 'file_mounts["/data"]', 'file_mounts["/data"]: a bucket URL may not contain "?", "#" or white space', 'write only the bucket and path; credentials such as SAS tokens do not belong in a task file'],
    ],
  },
  {
    name: 'bucket URL path climbing out',
    text: 'file_mounts:\n  /data: s3://my-bucket/a/../b\n',
    expect: [
      ['error', 2, 10, 'file_mounts["/data"]', 'file_mounts["/data"]: the path inside the bucket has a "." or ".." segment', 'write the path from the bucket root, without "." or ".."'],
    ],
  },
  {
    name: 'S3 name with upper case and underscore',
    text: 'file_mounts:\n  /data: s3://My_Bucket\n',
    expect: [
      ['error', 2, 10, 'file_mounts["/data"]', 'file_mounts["/data"]: "My_Bucket" is not a valid S3 bucket name: it may hold only lowercase letters, digits, dots and hyphens', 'did you mean "my-bucket"? S3 bucket names are 3-63 characters of a-z, 0-9, "." and "-", starting and ending with a letter or digit'],
    ],
  },
  {
    name: 'S3 name too short',
    text: 'file_mounts:\n  /data: s3://ab\n',
    expect: [
      ['error', 2, 10, 'file_mounts["/data"]', 'file_mounts["/data"]: "ab" is not a valid S3 bucket name: it is 2 characters long; it must be 3 to 63', 'S3 bucket names are 3-63 characters of a-z, 0-9, "." and "-", starting and ending with a letter or digit'],
    ],
  },
  {
    name: 'S3 name like an IP address',
    text: 'file_mounts:\n  /data: s3://192.168.5.4\n',
    expect: [
      ['error', 2, 10, 'file_mounts["/data"]', 'file_mounts["/data"]: "192.168.5.4" is not a valid S3 bucket name: it must not look like an IP address', 'S3 bucket names are 3-63 characters of a-z, 0-9, "." and "-", starting and ending with a letter or digit'],
    ],
  },
  {
    name: 'S3 name with two dots',
    text: 'file_mounts:\n  /data: s3://my..bucket\n',
    expect: [
      ['error', 2, 10, 'file_mounts["/data"]', 'file_mounts["/data"]: "my..bucket" is not a valid S3 bucket name: it must not contain two dots in a row', 'did you mean "my.bucket"? S3 bucket names are 3-63 characters of a-z, 0-9, "." and "-", starting and ending with a letter or digit'],
    ],
  },
  {
    name: 'S3 name with the xn-- prefix',
    text: 'file_mounts:\n  /data: s3://xn--bucket\n',
    expect: [
      ['error', 2, 10, 'file_mounts["/data"]', 'file_mounts["/data"]: "xn--bucket" is not a valid S3 bucket name: it must not start with the reserved prefix "xn--"', 'did you mean "xn-bucket"? S3 bucket names are 3-63 characters of a-z, 0-9, "." and "-", starting and ending with a letter or digit'],
    ],
  },
  {
    name: 'R2 name with a dot',
    text: 'file_mounts:\n  /data: r2://my.bucket\n',
    expect: [
      ['error', 2, 10, 'file_mounts["/data"]', 'file_mounts["/data"]: "my.bucket" is not a valid R2 bucket name: it may hold only lowercase letters, digits and hyphens', 'did you mean "my-bucket"? R2 bucket names are 3-63 characters of a-z, 0-9 and "-", starting and ending with a letter or digit'],
    ],
  },
  {
    name: 'GCS name containing google',
    text: 'file_mounts:\n  /data: gs://my-google-data\n',
    expect: [
      ['error', 2, 10, 'file_mounts["/data"]', 'file_mounts["/data"]: "my-google-data" is not a valid GCS bucket name: it must not start with "goog" or contain "google" (or look-alikes)', 'GCS bucket names are 3-63 characters of a-z, 0-9, "-", "_" and "." (up to 222 with dots), starting and ending with a letter or digit'],
    ],
  },
];
