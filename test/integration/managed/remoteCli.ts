// The bundled CLI run as a user would, as separate processes, with the managed-jobs controller
// on a controller cluster (SKYDECK_JOBS_CONTROLLER). Shared by the remote-controller tests.
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { bundleWorker } from '../../support/bundleWorker';

const ROOT = path.resolve(__dirname, '../../..');

export interface CliRun {
  code: number | null;
  out: string;
  err: string;
}

/** The CLI bundle (entry, agent, wasm) copied into its own directory, so a test may change it. */
export async function cliBundleCopy(): Promise<string> {
  const built = await bundleWorker(path.join(ROOT, 'src/cli/main.ts'));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-mj-bundle-'));
  fs.copyFileSync(built, path.join(dir, 'cli.js'));
  fs.cpSync(path.join(ROOT, 'agent'), path.join(dir, 'agent'), { recursive: true, filter: (p) => !p.includes('__pycache__') });
  fs.copyFileSync(path.join(ROOT, 'node_modules/sql.js/dist/sql-wasm.wasm'), path.join(dir, 'sql-wasm.wasm'));
  return path.join(dir, 'cli.js');
}

export function runCli(cli: string, args: string[], env: NodeJS.ProcessEnv, cwd: string): Promise<CliRun> {
  return new Promise((resolve) => {
    const c = spawn(process.execPath, [cli, ...args], { env, cwd });
    let out = '';
    let err = '';
    c.stdout.on('data', (d) => (out += d));
    c.stderr.on('data', (d) => (err += d));
    c.on('close', (code) => resolve({ code, out, err }));
  });
}

/** The row of one job in `jobs queue --all`: [id, name, status, recoveries, cluster]. */
export function queueRow(out: string, id: number): string[] | undefined {
  const line = out.split('\n').find((l) => l.startsWith(`${id} `));
  return line?.split(/ {2,}/).map((s) => s.trim());
}

export async function until<T>(what: string, fn: () => Promise<T | undefined | false>, timeoutMs = 600_000, extra?: () => Promise<string>): Promise<T> {
  const end = Date.now() + timeoutMs;
  // Each look is usually a whole CLI process (node, the bundle, an SSH handshake: ~0.5 s of CPU):
  // quick at first, then less often, so a long wait does not keep a core busy polling.
  for (let pause = 300; ; pause = Math.min(pause * 1.5, 2_000)) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}${extra ? `\n${await extra()}` : ''}`);
    await new Promise((r) => setTimeout(r, pause));
  }
}
