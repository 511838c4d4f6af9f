// Which local files a `name:` mount uploads, for source trees a user (or a cloned repo) made odd:
// symlink loops, links to directories outside, dangling links.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { uploadFilesOf } from '../../../src/core/ops/bucketStores';
import type { NamedBucketMount } from '../../../src/core/storage/types';

describe('ops: upload file list of a name: bucket mount', () => {
  let dir: string;
  beforeEach(() => { dir = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-upload-')); });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const mount = (src: string) => ({ kind: 'named', store: 's3', name: 'b', mode: 'MOUNT', localSource: src }) as unknown as NamedBucketMount;

  it('skips symlink loops, dangling links and links to directories; keeps files and links to files', () => {
    const src = path.join(dir, 'src');
    fs.mkdirSync(path.join(src, 'sub'), { recursive: true });
    fs.writeFileSync(path.join(src, 'sub', 'a.txt'), 'a');
    fs.writeFileSync(path.join(dir, 'outside.txt'), 'o');
    fs.symlinkSync('self', path.join(src, 'self')); // ELOOP on stat
    fs.symlinkSync('pong', path.join(src, 'ping'));
    fs.symlinkSync('ping', path.join(src, 'pong'));
    fs.symlinkSync('missing', path.join(src, 'dangling'));
    fs.symlinkSync(dir, path.join(src, 'up')); // a directory (containing src itself): not walked
    fs.symlinkSync(path.join(dir, 'outside.txt'), path.join(src, 'file-link'));
    const files = uploadFilesOf('/data', mount(src), dir);
    assert.deepEqual([...files.values()].sort(), ['file-link', 'sub/a.txt']);
  });
});
