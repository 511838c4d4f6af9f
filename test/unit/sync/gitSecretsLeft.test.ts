// Issue 16 review: the git workdir script keeps the token and ssh key in a private temp dir on
// the node. A clone killed mid-fetch (a dropped connection's TERM/HUP, or kill -9) must not leave
// them there: signals remove the dir at once, and a SIGKILL's leftovers go at the next clone.
// Run here under a real /bin/sh with a `git` stand-in that hangs in fetch.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { gitScript } from '../../../src/core/sync/gitScript';

const KEY = '-----BEGIN OPENSSH PRIVATE KEY-----\nsecret-key-body\n-----END OPENSSH PRIVATE KEY-----\n';

describe('git workdir: no token or key left on the node after a killed clone', function () {
  this.timeout(30_000);
  let root: string;
  beforeEach(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'gitleft-'));
    fs.mkdirSync(path.join(root, 'bin'));
    fs.mkdirSync(path.join(root, 'tmp'));
    // fetch hangs while HANG exists; everything else succeeds (rev-parse prints a commit).
    fs.writeFileSync(path.join(root, 'bin', 'git'), `#!/bin/sh
case "$1" in
  fetch) while [ -e ${JSON.stringify(path.join(root, 'HANG'))} ]; do sleep 0.05; done; exit 0 ;;
  rev-parse) echo 0123456789012345678901234567890123456789 ;;
  remote) [ "$2" = get-url ] && exit 1; exit 0 ;;
  *) exit 0 ;;
esac
`, { mode: 0o755 });
  });
  afterEach(() => { fs.rmSync(root, { recursive: true, force: true }); });

  const leftovers = (): string[] => fs.readdirSync(path.join(root, 'tmp'));
  const run = (hang: boolean) => {
    if (hang) fs.writeFileSync(path.join(root, 'HANG'), '');
    else fs.rmSync(path.join(root, 'HANG'), { force: true });
    const child = spawn('/bin/sh', ['-c', gitScript(path.join(root, 'wd'), 'git@example.com:o/r.git', 'main')], {
      env: { PATH: `${path.join(root, 'bin')}:/usr/bin:/bin`, TMPDIR: path.join(root, 'tmp'), HOME: root },
      stdio: ['pipe', 'pipe', 'pipe'], detached: true,
    });
    child.stdin.end(`tok-secret\n${KEY}`);
    const done = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    return { child, done };
  };
  const keyWritten = async (): Promise<void> => {
    for (;;) {
      const d = leftovers().map((n) => path.join(root, 'tmp', n, 'key')).find((f) => fs.existsSync(f) && fs.statSync(f).size > 0);
      if (d) return;
      await new Promise((r) => setTimeout(r, 20));
    }
  };

  for (const sig of ['SIGTERM', 'SIGHUP', 'SIGINT'] as const) {
    it(`${sig} to the clone's shell during the fetch removes the key and token at once`, async () => {
      const { child, done } = run(true);
      await keyWritten();
      process.kill(-child.pid!, sig);
      fs.rmSync(path.join(root, 'HANG'), { force: true });
      await done;
      assert.deepEqual(leftovers(), []);
    });
  }

  it('kill -9 during the fetch: the next clone removes the dead one\'s key and token', async () => {
    const { child, done } = run(true);
    await keyWritten();
    process.kill(-child.pid!, 'SIGKILL');
    await done;
    assert.equal(leftovers().length, 1, 'kill -9 cannot be trapped: its temp dir stays until the next clone');
    const next = run(false);
    assert.equal(await next.done, 0);
    assert.deepEqual(leftovers(), []);
  });

  it('a clone running alongside keeps its own temp dir (only dead clones\' dirs are swept)', async () => {
    const a = run(true);
    await keyWritten();
    const b = run(true);
    // b has swept and written its own key once two dirs hold one.
    while (leftovers().filter((n) => fs.existsSync(path.join(root, 'tmp', n, 'key'))).length < 2) {
      await new Promise((r) => setTimeout(r, 20));
    }
    fs.rmSync(path.join(root, 'HANG'), { force: true });
    assert.equal(await a.done, 0);
    assert.equal(await b.done, 0);
    assert.deepEqual(leftovers(), []);
  });
});
