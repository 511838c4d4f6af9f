// Starts killChild.ts (a controller in its own process) and SIGKILLs it `killAfterMs` after its
// start, or after `from` appears (a kill among the acknowledgements of a submit burst).
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { build } from 'esbuild';
import type { KillChildConfig } from './killChild';

const ROOT = path.resolve(__dirname, '../../..');
let bundled: Promise<string> | undefined;

/**
 * killChild.ts bundled once per process, with what the bundle finds beside itself (the agent
 * its jobs run with, sql.js's WASM): a child then costs node's start-up, not tsx transpiling
 * the controller's whole import graph at every one of a test's many starts.
 */
function killChildBundle(): Promise<string> {
  bundled ??= (async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-managed-killchild-'));
    const out = path.join(dir, 'killChild.cjs');
    await build({
      entryPoints: [path.join(__dirname, 'killChild.ts')], bundle: true, platform: 'node', format: 'cjs', outfile: out,
      logLevel: 'error', external: ['vscode', 'cpu-features', '*.node'],
    });
    fs.copyFileSync(require.resolve('sql.js/dist/sql-wasm.wasm'), path.join(dir, 'sql-wasm.wasm'));
    fs.cpSync(path.join(ROOT, 'agent'), path.join(dir, 'agent'), { recursive: true, filter: (p) => !p.includes('__pycache__') });
    return out;
  })();
  bundled.catch(() => (bundled = undefined));
  return bundled;
}

/**
 * Runs the kill child; kills it `killAfterMs` after it starts (or after the file `from`
 * appears), or, given `{ lines }`, as soon as `from` holds that many lines (acknowledgements:
 * a point inside a burst however fast the child runs).
 */
export async function runKillChild(cfg: KillChildConfig, killAfterMs?: number | { lines: number }, from?: string): Promise<{ code: number | null; signal: string | null; err: string }> {
  const bundle = await killChildBundle();
  return new Promise((resolve) => {
    // Short-lived: without V8's optimizing tiers (JS and WASM) a start costs half the CPU.
    const child = spawn(process.execPath, ['--liftoff-only', '--no-opt', bundle, JSON.stringify(cfg)], { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    let timer: NodeJS.Timeout | undefined;
    const byLines = typeof killAfterMs === 'object' ? killAfterMs.lines : undefined;
    const arm = () => (timer = setTimeout(() => child.kill('SIGKILL'), typeof killAfterMs === 'number' ? killAfterMs : 0));
    const reached = (file: string): boolean => {
      if (!fs.existsSync(file)) return false;
      return byLines === undefined || fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).length >= byLines;
    };
    const poll = killAfterMs !== undefined && from ? setInterval(() => {
      if (!reached(from)) return;
      clearInterval(poll);
      arm();
    }, 2) : undefined;
    if (killAfterMs !== undefined && !from) arm();
    child.on('exit', (code, signal) => {
      clearInterval(poll);
      clearTimeout(timer);
      resolve({ code, signal, err });
    });
  });
}
