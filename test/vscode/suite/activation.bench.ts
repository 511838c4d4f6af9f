// Figures for bench/ui.ts, which runs only the *.bench files in a fresh extension host
// (SKYDECK_TEST_BENCH=1): activation time, what loading dist/extension.js and the core chunk
// cost. Not part of the test run: a timing is not a pass/fail check (the behaviour behind these
// figures is asserted in activation.test.ts).
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { log } from './log';

describe('activation bench (extension host)', () => {
  let ext: vscode.Extension<unknown>;

  before(() => {
    const found = vscode.extensions.getExtension('skydeck.skydeck');
    assert.ok(found, 'skydeck.skydeck is not loaded');
    ext = found;
  });

  it('activation', async () => {
    const wasActive = ext.isActive;
    // The workbench activates its built-in extensions in this same host at start-up; timed then,
    // Skydeck's activation would include their work. Wait for a quiet host.
    const settled = await quietHost();
    const cpu0 = process.cpuUsage();
    const t = performance.now();
    await ext.activate();
    const ms = performance.now() - t;
    // CPU time of this process meanwhile (on a loaded box the wall clock also counts waiting).
    const cpu = process.cpuUsage(cpu0);
    const inside = (ext.exports as { activateMs?: number } | undefined)?.activateMs;
    assert.ok(!wasActive, 'the extension was already active: no activation figure');
    log(`      activation: ${ms.toFixed(1)} ms (cpu ${((cpu.user + cpu.system) / 1000).toFixed(1)} ms; activate() itself ${inside?.toFixed(1)} ms; host quiet after ${settled.toFixed(0)} ms)`);
  });

  it('loading dist/extension.js alone (a second copy, evaluated here)', () => {
    // Part of the activation figure is ours (this, plus activate() itself); the rest is VS Code's
    // own work per activation (its API object, the extension context and storage over IPC).
    const copy = path.join(ext.extensionPath, 'out', `probe-extension-${process.pid}.js`);
    fs.mkdirSync(path.dirname(copy), { recursive: true });
    fs.copyFileSync(path.join(ext.extensionPath, 'dist', 'extension.js'), copy);
    try {
      const t = performance.now();
      require(copy);
      log(`      extension.js load: ${(performance.now() - t).toFixed(1)} ms`);
    } finally {
      delete require.cache[copy];
      fs.rmSync(copy, { force: true });
    }
  });

  it('loading the core chunk (the first command\'s or first refresh\'s cost)', () => {
    const core = path.join(ext.extensionPath, 'dist', 'extension-core.js');
    assert.ok(!Object.keys(require.cache).includes(core), 'the core chunk was already loaded');
    const t = performance.now();
    require(core);
    log(`      core chunk load: ${(performance.now() - t).toFixed(1)} ms`);
  });
});

/**
 * Waits until the extension host's event loop is idle: ten 20 ms timers in a row fire less than
 * 5 ms late (at most 15 s). Returns how long that took.
 */
async function quietHost(): Promise<number> {
  const t0 = performance.now();
  for (let calm = 0; calm < 10 && performance.now() - t0 < 15_000;) {
    const t = performance.now();
    await new Promise((r) => setTimeout(r, 20));
    calm = performance.now() - t < 25 ? calm + 1 : 0;
  }
  return performance.now() - t0;
}
