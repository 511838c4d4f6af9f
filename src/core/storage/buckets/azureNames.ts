// Skydeck's tags as Azure container metadata. Metadata names must be C# identifiers (letters,
// digits, _; not starting with a digit) and come back lowercased, so "skydeck-bucket-uid" is
// stored as "skydeck_bucket_uid" and mapped back on read; other names pass through unchanged.
import { StorageError } from '../errors';
import { BUCKET_TAGS } from './types';

const SKYDECK_KEYS: readonly string[] = Object.values(BUCKET_TAGS);

export const containerLabel = (account: string, name: string): string => `https://${account}.blob.core.windows.net/${name}`;

export function toMetadata(account: string, name: string, tags: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(tags)) {
    const key = k.replace(/-/g, '_');
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(key)) {
      throw new StorageError('config', containerLabel(account, name), `the tag ${k} cannot be an Azure metadata name`, 'Use letters, digits, _ or - (not first) in tag names.');
    }
    // Header values travel as ASCII; anything else would be refused by the service.
    if (!/^[\x20-\x7e]*$/.test(v)) throw new StorageError('config', containerLabel(account, name), `the tag ${k} has a non-ASCII value`, 'Use ASCII tag values.');
    out[key.toLowerCase()] = v;
  }
  return out;
}

export function fromMetadata(metadata: Record<string, string> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(metadata ?? {})) {
    const skydeck = SKYDECK_KEYS.find((t) => t.replace(/-/g, '_') === k.toLowerCase());
    out[skydeck ?? k] = v;
  }
  return out;
}

/** The metadata name that marks a container as Skydeck's. */
export const UID_METADATA = BUCKET_TAGS.uid.replace(/-/g, '_');
