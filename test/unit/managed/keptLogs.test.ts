// Reading back what the controller kept (keptLogs.ts) and its log file (controllerLog.ts):
// segment order, the marked line between, a segment that could not be kept, and job 3 ≠ job 31.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { keptLogDir, linesAbout, readKeptLog } from '../../../src/core/managed';
import { tempRoot } from './helpers';

describe('managed: kept logs and the controller log', () => {
  it('segments in launch order (10 after 9), a newline before a marker only where the output lacks one', () => {
    const root = tempRoot();
    const dir = keptLogDir(root, 3);
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, '10-j-mj3-10.log'), 'ten\n');
    fs.writeFileSync(path.join(dir, '9-j-mj3-9.missing'), 'cluster j-mj3-9 is gone');
    fs.writeFileSync(path.join(dir, '2-j-mj3-2.log'), Buffer.from([0x61, 0xff])); // no final newline
    fs.writeFileSync(path.join(dir, 'stray.txt'), 'ignored');
    assert.equal(readKeptLog(root, 3)!.toString('latin1'), 'a\xff\n--- managed job 3: now on cluster j-mj3-9 (launch 9) ---\n' +
      '[skydeck: the output on cluster j-mj3-9 could not be kept: cluster j-mj3-9 is gone]\n' +
      '--- managed job 3: now on cluster j-mj3-10 (launch 10) ---\nten\n');
    assert.equal(readKeptLog(root, 4), undefined, 'nothing kept: undefined, not empty output');
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('from where a live follow stopped: the rest of that cluster, then the later ones marked; an unkept cluster is nothing', () => {
    const root = tempRoot();
    const dir = keptLogDir(root, 5);
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, '1-j-mj5-1.log'), 'one\ntwo\n');
    fs.writeFileSync(path.join(dir, '2-j-mj5-2.log'), 'three\n');
    assert.equal(readKeptLog(root, 5, { cluster: 'j-mj5-1', offset: 0 })!.toString(), 'one\ntwo\n--- managed job 5: now on cluster j-mj5-2 (launch 2) ---\nthree\n',
      'a read that failed at its first byte (the cluster torn down under it) gets all of it');
    assert.equal(readKeptLog(root, 5, { cluster: 'j-mj5-1', offset: 4 })!.toString(), 'two\n--- managed job 5: now on cluster j-mj5-2 (launch 2) ---\nthree\n');
    assert.equal(readKeptLog(root, 5, { cluster: 'j-mj5-2', offset: 6 }), undefined, 'read whole: nothing more');
    assert.equal(readKeptLog(root, 5, { cluster: 'j-mj5-3', offset: 0 }), undefined);
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('controller log lines about job 3 only; a missing file is no lines; only the tail of a huge file is read', () => {
    const root = tempRoot();
    const f = path.join(root, 'controller.log');
    assert.deepEqual(linesAbout(f, 3), []);
    fs.writeFileSync(f, 'managed job 3: a\nmanaged job 31: b\nmanaged job 3 (RUNNING): c\nmanaged job 30\nother\n');
    assert.deepEqual(linesAbout(f, 3), ['managed job 3: a', 'managed job 3 (RUNNING): c']);
    fs.writeFileSync(f, `${'managed job 3: old\n'.repeat(100)}managed job 3: new\n`);
    // 30 bytes of tail: the cut line is dropped, only whole lines count.
    assert.deepEqual(linesAbout(f, 3, 30), ['managed job 3: new']);
    fs.rmSync(root, { recursive: true, force: true });
  });
});
