// bench:ui and the VS Code test launcher when what they need is missing: they say so and exit
// non-zero at once, with nothing left running, and never fall back to downloading desktop VS
// Code. The guard below only stops a hang from hanging the suite (a hang is the bug).
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { skipOrFailWithout } from '../../support/ci';
import { runGuarded } from '../../support/runGuarded';

const ROOT = path.resolve(__dirname, '../../..');
const HANG_GUARD_MS = 180_000;

function run(cmd: string, args: string[], env: Record<string, string>) {
  return runGuarded(cmd, args, { cwd: ROOT, env, guardMs: HANG_GUARD_MS });
}

describe('benchmarks and runners exit on failure', function () {
  this.timeout(HANG_GUARD_MS + 30_000);
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-bench-fail-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('issue 12.12: bench:ui (log panel) without Chromium exits non-zero instead of hanging', async () => {
    const chromium = path.join(dir, 'no-chromium');
    const r = await run(path.join(ROOT, 'node_modules/.bin/tsx'), ['bench/ui.ts', '--only=logs'], { SKYDECK_CHROMIUM: chromium });
    assert.equal(r.signal, null, `bench:ui did not exit within ${HANG_GUARD_MS} ms (killed):\n${r.out.slice(-2000)}`);
    assert.equal(r.status, 1, r.out.slice(-2000));
    assert.ok(r.stderr.includes(chromium), 'it says which browser is missing');
    assert.equal(r.stdout.trim(), '', 'no figure printed for a failed run');
  });

  it('issue 12.12: the code-server launcher without Chromium exits 1 before starting code-server', async () => {
    // A stand-in code-server that only records that it was started.
    const marker = path.join(dir, 'code-server-started');
    const fake = path.join(dir, 'code-server');
    fs.writeFileSync(fake, `#!/bin/sh\ntouch '${marker}'\nexec sleep 600\n`, { mode: 0o755 });
    const tests = path.join(dir, 'index.js');
    fs.writeFileSync(tests, '');
    const chromium = path.join(dir, 'no-chromium');
    const r = await run(process.execPath, ['scripts/vscode-test/code-server-launcher.mjs', `--extensionTestsPath=${tests}`, `--extensionDevelopmentPath=${ROOT}`], {
      SKYDECK_CHROMIUM: chromium, SKYDECK_CODE_SERVER: fake,
    });
    assert.equal(r.signal, null, r.out.slice(-2000));
    assert.equal(r.status, 1, r.out.slice(-2000));
    assert.ok(r.stderr.includes(chromium), r.stderr.slice(-2000));
    assert.equal(fs.existsSync(marker), false, 'code-server was started although no browser could open it');
  });

  it('issue 12.14: bench:ui installs code-server itself (the test runner\'s installer) instead of downloading desktop VS Code', async function () {
    if (!fs.existsSync(path.join(ROOT, 'dist/extension-core.js'))) return skipOrFailWithout(this, 'issue 12.14 (bench:ui install)', 'dist/ is not built (npm run build)');
    // An install location that cannot be created: the installer fails at once, and the bench
    // must report that — not pick desktop VS Code, which it would download (offline here).
    const blocker = path.join(dir, 'a-file');
    fs.writeFileSync(blocker, '');
    const r = await run(path.join(ROOT, 'node_modules/.bin/tsx'), ['bench/ui.ts', '--only=activation', '--runs=1'], {
      SKYDECK_TEST_CACHE: path.join(blocker, 'cache'), SKYDECK_TEST_VSCODE: '', SKYDECK_CODE_SERVER: '',
    });
    assert.equal(r.signal, null, r.out.slice(-2000));
    assert.equal(r.status, 1, r.out.slice(-2000));
    assert.match(r.stderr, /install-code-server\.sh failed/, r.out.slice(-2000));
    assert.doesNotMatch(r.out, /desktop|Downloading VS Code|update\.code\.visualstudio\.com/i);
  });
});
