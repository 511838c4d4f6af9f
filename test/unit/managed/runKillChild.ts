// Starts killChild.ts (a controller in its own process) and SIGKILLs it `killAfterMs` after its
// start, or after `from` appears (a kill among the acknowledgements of a submit burst).
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { KillChildConfig } from './killChild';

export function runKillChild(cfg: KillChildConfig, killAfterMs?: number, from?: string): Promise<{ code: number | null; signal: string | null; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, 'killChild.ts'), JSON.stringify(cfg)], { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    let timer: NodeJS.Timeout | undefined;
    const arm = () => (timer = setTimeout(() => child.kill('SIGKILL'), killAfterMs));
    const poll = killAfterMs !== undefined && from ? setInterval(() => {
      if (!fs.existsSync(from)) return;
      clearInterval(poll);
      arm();
    }, 5) : undefined;
    if (killAfterMs !== undefined && !from) arm();
    child.on('exit', (code, signal) => {
      clearInterval(poll);
      clearTimeout(timer);
      resolve({ code, signal, err });
    });
  });
}
