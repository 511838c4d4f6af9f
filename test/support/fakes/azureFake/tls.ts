// A throw-away self-signed certificate for 127.0.0.1, made with the openssl CLI: node:crypto
// can make keys but not X.509 certificates. The ARM SDK refuses bearer tokens over plain http.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export interface TestCert {
  key: string;
  cert: string;
}

/** The cert, or undefined with the reason when openssl is missing (the suite then skips loudly). */
export function makeCert(): TestCert | { missing: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-azcert-'));
  try {
    const r = spawnSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
      '-keyout', path.join(dir, 'key.pem'), '-out', path.join(dir, 'cert.pem'), '-days', '2', '-subj', '/CN=127.0.0.1',
      '-addext', 'subjectAltName=IP:127.0.0.1'], { encoding: 'utf8' });
    if (r.error || r.status !== 0) return { missing: `openssl could not make a certificate: ${r.error?.message ?? r.stderr}` };
    return { key: fs.readFileSync(path.join(dir, 'key.pem'), 'utf8'), cert: fs.readFileSync(path.join(dir, 'cert.pem'), 'utf8') };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
