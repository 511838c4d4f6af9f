import assert from 'node:assert/strict';
import { classifyFailure, findMount, isDeadMountError, parseMountInfo } from '../../../src/core/storage';

// Output as rclone 1.60.1 printed it on this machine (see test/integration/storage/errors.test.ts).
const SAMPLES: Array<[string, number | null, string]> = [
  ['bucket-missing', 3, '2026/12/01 22:03:44 ERROR : : error listing: directory not found\n2026/12/01 22:03:44 Failed to lsf with 2 errors: last error was: error in ListJSON: directory not found'],
  ['denied', 1, 'ERROR : : error listing: InvalidAccessKeyId: The AWS Access Key Id you provided does not exist in our records.\n\tstatus code: 403, request id: X'],
  ['denied', 1, 'Failed to copy: AccessDenied: Access Denied\n\tstatus code: 403'],
  ['unreachable', 1, 'caused by: Get "http://127.0.0.1:1/bkt1?delimiter=%2F": dial tcp 127.0.0.1:1: connect: connection refused'],
  ['no-credentials', 1, 'Failed to create file system for "a:ctr": failed to acquire MSI token: HTTP error 403 (403 Forbidden)'],
  ['no-credentials', 1, 'error listing: NoCredentialProviders: no valid providers in chain. Deprecated.'],
  ['fuse-missing', 1, 'mount helper error: fusermount: failed to open /dev/fuse: Permission denied\nFatal error: failed to mount FUSE fs: fusermount: exit status 1'],
  ['tool-missing', 127, 'sh: 1: exec: rclone: not found'],
  ['tool-missing', 1, 'Fatal error: failed to mount FUSE fs: exec: "fusermount": executable file not found in $PATH'],
];

describe('storage/errors: rclone output → typed error', () => {
  for (const [kind, code, text] of SAMPLES) {
    it(`${kind}: ${text.split('\n')[0].slice(0, 60)}`, () => {
      const e = classifyFailure('/data: s3://bkt', 'rclone', code, text);
      assert.equal(e.kind, kind);
      assert.ok(e.message.startsWith('/data: s3://bkt: '));
      assert.ok(e.message.endsWith(e.fix));
    });
  }

  it('anything else is "failed", quoting the last lines without the config-file notice', () => {
    const e = classifyFailure('/d: gs://b', 'the copy', 2, 'NOTICE: Config file "/x" not found - using defaults\nsomething odd happened\n');
    assert.equal(e.kind, 'failed');
    assert.match(e.message, /the copy failed \(exit 2\): something odd happened/);
    assert.doesNotMatch(e.message, /Config file/);
  });
});

describe('storage/mountInfo', () => {
  const TEXT = [
    '22 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw',
    '67 45 0:40 / /home/u/my\\040data rw,nosuid,nodev,relatime - fuse.rclone skydeck:b/p rw,user_id=1001,group_id=1001',
    '68 67 0:41 / /home/u/stack rw shared:5 master:2 - fuse.rclone skydeck:old rw',
    '69 67 0:42 / /home/u/stack rw - fuse.rclone skydeck:new rw',
  ].join('\n');

  it('unescapes octal paths and finds the fs type and source past optional fields', () => {
    const all = parseMountInfo(TEXT);
    assert.equal(all.length, 4);
    assert.deepEqual(findMount(TEXT, '/home/u/my data'), { mountPoint: '/home/u/my data', fsType: 'fuse.rclone', source: 'skydeck:b/p' });
    assert.deepEqual(findMount(TEXT, '/home/u/my data/'), all[1]);
  });

  it('the topmost of stacked mounts wins; an unmounted path is undefined', () => {
    assert.equal(findMount(TEXT, '/home/u/stack')?.source, 'skydeck:new');
    assert.equal(findMount(TEXT, '/home/u'), undefined);
  });

  it('a dead FUSE mount is known by ENOTCONN and by ECONNABORTED (a stat in flight when its server died)', () => {
    assert.ok(isDeadMountError("mkdir: cannot stat '/home/u/c4': Transport endpoint is not connected"));
    assert.ok(isDeadMountError("mkdir: cannot stat '/home/u/c4': Software caused connection abort"));
    assert.ok(!isDeadMountError("mkdir: cannot create directory '/home/u/c4': Permission denied"));
    assert.ok(!isDeadMountError("mkdir: cannot create directory '/home/u/not connected': Permission denied"));
  });
});
