// Issue 16 review: a local upload source holding a file named like the R2 ownership marker
// (.skydeck-bucket.json at the bucket root) must not overwrite it; other files still go.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { uploadChanged, type LocalFile } from '../../../src/core/storage/buckets/localFiles';
import { BUCKET_MARKER, hideMarkerFlags } from '../../../src/core/storage/marker';
import { copyArgv, mountArgv } from '../../../src/core/storage/rcloneArgs';

describe('storage: the bucket marker object is Skydeck\'s', () => {
  let dir: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'marker-'));
    fs.writeFileSync(path.join(dir, BUCKET_MARKER), '{"skydeck-uid":"someone-else"}');
    fs.mkdirSync(path.join(dir, 'sub'));
    fs.writeFileSync(path.join(dir, 'sub', BUCKET_MARKER), 'nested: just a file');
    fs.writeFileSync(path.join(dir, 'a.txt'), 'a');
  });
  after(() => { fs.rmSync(dir, { recursive: true, force: true }); });

  it('an upload never sends a local file onto the root marker key; nested files of that name still go', async () => {
    const sent: string[] = [];
    const files = new Map([[path.join(dir, BUCKET_MARKER), BUCKET_MARKER], [path.join(dir, 'a.txt'), 'a.txt'],
      [path.join(dir, 'sub', BUCKET_MARKER), `sub/${BUCKET_MARKER}`]]);
    const r = await uploadChanged({ label: 'r2://b', files, held: new Map(), limit: 2, send: async (f: LocalFile) => { sent.push(f.key); } });
    assert.deepEqual(sent.sort(), ['a.txt', `sub/${BUCKET_MARKER}`]);
    assert.equal(r.uploaded, 2);
  });

  it('COPY and MOUNT of a bucket root exclude the marker; of a prefix, nothing is excluded', () => {
    const flag = ['--exclude', `/${BUCKET_MARKER}`];
    const has = (argv: string[]) => argv.some((a, i) => a === flag[0] && argv[i + 1] === flag[1]);
    assert.ok(has(copyArgv('skydeck:bkt', '.')));
    assert.ok(has(mountArgv('skydeck:bkt', '/d', { cached: false, cacheDir: '/c', logFile: '/l' })));
    assert.ok(has(mountArgv('skydeck:bkt', '/d', { cached: true, cacheDir: '/c', logFile: '/l' })));
    assert.deepEqual(hideMarkerFlags('skydeck:bkt/some/prefix'), []);
    assert.ok(!has(copyArgv('skydeck:bkt/p', '.')));
  });
});
