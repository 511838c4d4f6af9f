// Makes sure code-server (and Chromium, from apt) are installed: install-code-server.sh, which is
// idempotent (well under a second when everything is there). Shared by run-all.mjs, runTests.ts
// and bench/ui.ts, so none of them falls back to downloading desktop VS Code (offline here).
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const SCRIPT = join(dirname(fileURLToPath(import.meta.url)), 'install-code-server.sh');

/** Whether install-code-server.sh can work here (Linux with Debian's apt). */
export function canInstallCodeServer() {
  return process.platform === 'linux' && existsSync('/usr/bin/dpkg-query');
}

/**
 * Runs the installer; its progress goes to our stderr. Resolves with the code-server binary's
 * path, or rejects with why it could not be installed.
 */
export function ensureCodeServer() {
  return new Promise((resolve, reject) => {
    if (!canInstallCodeServer()) {
      reject(new Error(`code-server is installed with Debian's apt; this is ${process.platform}${process.platform === 'linux' ? ' without dpkg' : ''}`));
      return;
    }
    const child = spawn('bash', [SCRIPT], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d.toString()));
    child.on('error', (e) => reject(new Error(`could not run ${SCRIPT}: ${e.message}`)));
    child.on('close', (code, signal) => {
      const bin = out.trim().split('\n').pop();
      if (code === 0 && bin) resolve(bin);
      else reject(new Error(`${SCRIPT} failed (${signal ?? `exit ${code}`})`));
    });
  });
}
