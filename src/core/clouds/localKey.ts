import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { generateEd25519 } from './opensshKey';

// Skydeck's own SSH key for the VMs it creates: one key per user, shared by every cloud.

export interface LocalKey {
  privatePath: string;
  publicKey: string;
}

export function defaultKeyDir(): string {
  return path.join(os.homedir(), '.skydeck', 'keys');
}

/** Created on first use: private half first with mode 0600, public half last (it marks completion). */
export function ensureLocalKey(dir: string): LocalKey {
  const privatePath = path.join(dir, 'skydeck-key');
  const publicPath = `${privatePath}.pub`;
  if (fs.existsSync(privatePath) && fs.existsSync(publicPath)) {
    return { privatePath, publicKey: fs.readFileSync(publicPath, 'utf8').trim() };
  }
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const pair = generateEd25519(`skydeck@${os.hostname()}`);
  fs.writeFileSync(privatePath, pair.private, { mode: 0o600 });
  fs.writeFileSync(publicPath, `${pair.public.trim()}\n`, { mode: 0o644 });
  return { privatePath, publicKey: pair.public.trim() };
}
