// Azurite (Microsoft's Azure Storage emulator, npm devDependency, 3.35) for the Azure Blob
// tests: one Blob service per test file on 127.0.0.1, a free port it picks itself (--blobPort 0,
// read back from its "listens on" line), its data in a temp directory removed at stop, and no
// telemetry (3.35 otherwise posts to Application Insights). Stopped by its pid.
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/** Azurite's well-known development account (documented by Microsoft; not a secret). */
export const AZURITE_ACCOUNT = 'devstoreaccount1';
export const AZURITE_KEY = 'Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==';

const MAIN = path.resolve(__dirname, '../../node_modules/azurite/dist/src/blob/main.js');

export interface Azurite {
  port: number;
  /** The Blob endpoint with the account in the path (Azurite's path-style URLs). */
  endpoint: string;
  connectionString: string;
  stop(): Promise<void>;
}

export function azuriteMissing(): string | undefined {
  return fs.existsSync(MAIN) ? undefined : 'azurite is not installed (npm devDependency azurite@3.35)';
}

export async function startAzurite(): Promise<Azurite> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-azurite-'));
  const child = spawn(process.execPath, [MAIN, '--blobHost', '127.0.0.1', '--blobPort', '0', '--location', dir,
    '--loose', '--skipApiVersionCheck', '--disableTelemetry', '--silent'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`azurite did not start within 60 s: ${out}`)), 60_000);
    const onData = (d: Buffer) => {
      out += d.toString();
      const m = /listens on http:\/\/127\.0\.0\.1:(\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`azurite exited (${code}) before listening: ${out}`));
    });
  });
  const endpoint = `http://127.0.0.1:${port}/${AZURITE_ACCOUNT}`;
  return {
    port, endpoint,
    connectionString: `DefaultEndpointsProtocol=http;AccountName=${AZURITE_ACCOUNT};AccountKey=${AZURITE_KEY};BlobEndpoint=${endpoint};`,
    async stop() {
      if (child.exitCode === null && child.pid) {
        const gone = new Promise((r) => child.once('exit', r));
        process.kill(child.pid, 'SIGTERM');
        await gone;
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
