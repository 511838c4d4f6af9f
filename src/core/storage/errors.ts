// Typed storage errors. Each names the mount ("/data: s3://bkt"), what went wrong and the fix,
// because launch shows it to the user as is.

export type StorageErrorKind =
  | 'bucket-missing'
  /** create: a bucket of that name already exists (anyone's: names are global on S3/GCS/R2). */
  | 'bucket-exists'
  /** delete: Skydeck did not create the bucket (no uid tag, or another uid). */
  | 'not-ours'
  /** delete: a live launch is uploading into the bucket (ops/bucketUsers.ts). */
  | 'in-use'
  | 'denied'
  | 'no-credentials'
  | 'unreachable'
  | 'tool-missing'
  | 'fuse-missing'
  | 'mountpoint'
  | 'timeout'
  | 'not-flushed'
  | 'config'
  | 'failed';

export class StorageError extends Error {
  constructor(
    readonly kind: StorageErrorKind,
    /** "/data: s3://bkt" */
    readonly mount: string,
    /** What went wrong, without the mount. */
    readonly why: string,
    /** What the user can do about it. */
    readonly fix: string,
  ) {
    super(`${mount}: ${why}. ${fix}`);
    this.name = 'StorageError';
  }
}

interface Rule { kind: StorageErrorKind; test: RegExp; why: string; fix: string }

// Checked in order against rclone's stderr / log; the first match wins. The texts are those of
// rclone 1.60 and the cloud APIs it relays (S3 error codes, GCS JSON errors, Azure codes;
// Google's token endpoint answers invalid_grant for a deleted, revoked or forged key).
const RULES: Rule[] = [
  { kind: 'tool-missing', test: /(^|\s)rclone: (command )?not found|exec: "?rclone"?: executable file not found/,
    why: 'rclone is not installed on the node', fix: 'Install it (Debian/Ubuntu: apt-get install rclone) or use an image that has it.' },
  { kind: 'tool-missing', test: /exec: "?fusermount3?"?: executable file not found|fusermount3?: (command )?not found/,
    why: 'fusermount (FUSE 3) is not installed on the node', fix: 'Install it (Debian/Ubuntu: apt-get install fuse3).' },
  { kind: 'fuse-missing', test: /\/dev\/fuse: (Permission denied|Operation not permitted)/,
    why: 'this user may not open /dev/fuse', fix: 'Make /dev/fuse usable by the user (mode 0666, as Debian and Ubuntu ship it), or on a container give it --device /dev/fuse.' },
  { kind: 'fuse-missing', test: /\/dev\/fuse: No such file|fuse: device not found|no FUSE device/i,
    why: 'the node has no FUSE device (/dev/fuse)', fix: 'Use a VM image with FUSE (modprobe fuse), or a container started with --device /dev/fuse; or use mode COPY.' },
  { kind: 'mountpoint', test: /directory (is )?(already mounted|not empty)|mountpoint is not empty|non-empty/i,
    why: 'the mount destination is not an empty directory', fix: 'Mount on an empty directory, or choose another destination.' },
  { kind: 'bucket-missing', test: /NoSuchBucket|ContainerNotFound|bucket does not exist|storage: bucket doesn't exist|directory not found/i,
    why: 'the bucket does not exist (or this identity cannot see it)', fix: 'Check the bucket name and region, or create it (`name:` with `store:` in file_mounts creates one).' },
  { kind: 'no-credentials', test: /NoCredentialProviders|no EC2 IMDS role found|could not find default credentials|failed to acquire MSI token|EnvAccessKeyNotFound/i,
    why: 'the node has no identity to read the bucket with', fix: 'Give the VM an identity with access to the bucket (instance profile, service account, managed identity), or opt in to copying credentials.' },
  { kind: 'denied', test: /AccessDenied|InvalidAccessKeyId|SignatureDoesNotMatch|AuthorizationFailure|AuthenticationFailed|AuthorizationPermissionMismatch|InvalidToken|ExpiredToken|invalid_grant|status code:? 40[13]|Error 40[13]|\b403 Forbidden/i,
    why: 'access was denied', fix: 'Grant the node\'s identity read (and for writes, write) access to the bucket, or check the keys given.' },
  { kind: 'unreachable', test: /connection refused|no such host|i\/o timeout|network is unreachable|context deadline exceeded|TLS handshake timeout|dial tcp/i,
    why: 'the storage endpoint cannot be reached', fix: 'Check the node\'s network access to the store (proxy, firewall, VPC endpoint) and the endpoint setting.' },
];

/** The last lines of rclone's output, for the message (never more than ~600 characters). */
function excerpt(text: string): string {
  const lines = text.split('\n').map((l) => l.trim()).filter((l) => l && !/NOTICE: Config file/.test(l));
  const tail = lines.slice(-3).join(' | ');
  return tail.length > 600 ? `…${tail.slice(-600)}` : tail;
}

/** Maps a failed rclone / fusermount run (exit code, output already redacted) to a StorageError. */
export function classifyFailure(mount: string, what: string, code: number | null, output: string): StorageError {
  if (code === 127 && /rclone/.test(output)) return fromRule(RULES[0], mount, output);
  for (const r of RULES) if (r.test.test(output)) return fromRule(r, mount, output);
  const detail = excerpt(output);
  return new StorageError('failed', mount, `${what} failed (exit ${code ?? 'by signal'})${detail ? `: ${detail}` : ''}`,
    'See the rclone message above; run the same rclone command on the node with -vv for details.');
}

function fromRule(r: Rule, mount: string, output: string): StorageError {
  const detail = excerpt(output);
  return new StorageError(r.kind, mount, detail ? `${r.why} (${detail})` : r.why, r.fix);
}

export function timeoutError(mount: string, what: string, ms: number): StorageError {
  return new StorageError('timeout', mount, `${what} did not finish within ${Math.round(ms / 1000)} s`,
    'The store may be unreachable or very slow from the node; check its network access, or raise the time limit.');
}
