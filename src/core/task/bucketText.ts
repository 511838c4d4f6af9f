// File mounts in words, for launch output and refusals: `s3://my-bucket (MOUNT)`.

import type { BucketMount } from '../storage/types';
import { STORE_SCHEME } from './bucketUrl';
import { FileMount } from './types';

/** One bucket mount as a short phrase. */
export function describeBucketMount(m: BucketMount): string {
  if (m.kind === 'url') return `${m.url} (${m.mode})`;
  const where = `${STORE_SCHEME[m.store] === 'https://' ? 'azure:' : STORE_SCHEME[m.store]}${m.name}`;
  const upload = m.localSource !== undefined ? `, uploaded from ${m.localSource}` : m.localFiles ? `, uploaded from ${m.localFiles.join(', ')}` : '';
  const life = m.persistent ? 'kept after down' : 'deleted at down';
  return `${where} (${m.mode}, created if missing${upload}, ${life})`;
}

/** One file_mounts entry as a short phrase. */
export function describeFileMount(m: FileMount): string {
  switch (m.kind) {
    case 'copy': return m.source;
    case 'bucket': return describeBucketMount(m.mount);
    case 'unsupported': return `${m.store} storage (not supported by Skydeck)`;
    case 'deferred': return 'a bucket named by an env given at launch';
  }
}
