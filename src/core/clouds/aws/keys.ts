import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DescribeKeyPairsCommand, ImportKeyPairCommand, type EC2Client } from '@aws-sdk/client-ec2';
import { awsErrorCode, ec2Call } from './errors';
import { generateEd25519 } from './opensshKey';

export interface LocalKey {
  privatePath: string;
  publicKey: string;
}

export function defaultKeyDir(): string {
  return path.join(os.homedir(), '.skydeck', 'keys');
}

/**
 * Skydeck's own SSH key (one per user), created on first use. Written private-first with
 * mode 0600 and the public half last, so a half-written pair is never taken as complete.
 */
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

/**
 * The EC2 key-pair name for this public key: derived from the key itself, so two users (or
 * two machines) sharing an account never overwrite each other's key pair, and re-importing
 * the same key is a no-op.
 */
export function keyPairName(publicKey: string): string {
  const body = publicKey.split(/\s+/)[1] ?? publicKey;
  return `skydeck-${crypto.createHash('sha256').update(body).digest('hex').slice(0, 12)}`;
}

/** Imports the key into the region unless a key pair of that name is there already. */
export async function ensureKeyPair(ec2: EC2Client, key: LocalKey): Promise<string> {
  const name = keyPairName(key.publicKey);
  const found = await ec2Call('DescribeKeyPairs', async () => {
    try {
      const r = await ec2.send(new DescribeKeyPairsCommand({ KeyNames: [name] }));
      return (r.KeyPairs ?? []).length > 0;
    } catch (e) {
      if (awsErrorCode(e) === 'InvalidKeyPair.NotFound') return false;
      throw e;
    }
  });
  if (found) return name;
  await ec2Call('ImportKeyPair', async () => {
    try {
      await ec2.send(new ImportKeyPairCommand({
        KeyName: name, PublicKeyMaterial: Buffer.from(key.publicKey),
        TagSpecifications: [{ ResourceType: 'key-pair', Tags: [{ Key: 'skydeck-key', Value: 'true' }] }],
      }));
    } catch (e) {
      // Another window imported the same key between our look and our import: same result.
      if (awsErrorCode(e) !== 'InvalidKeyPair.Duplicate') throw e;
    }
  });
  return name;
}
