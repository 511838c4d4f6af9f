import * as crypto from 'node:crypto';
import { DescribeKeyPairsCommand, ImportKeyPairCommand, type EC2Client } from '@aws-sdk/client-ec2';
import { awsErrorCode, ec2Call } from './errors';
import type { LocalKey } from '../localKey';

export { defaultKeyDir, ensureLocalKey, type LocalKey } from '../localKey';

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
