// What one file_mounts entry (or a git workdir) will do, in words: the CodeLens line above it and
// the sentence its hover adds. No vscode import, so the wording is unit-tested in plain Node.

import type { BucketMount, MountMode, StoreKind } from '../../core/storage/types';
import type { FileMount, GitWorkdir } from '../../core/task';
import { printable } from '../../core/task/printable';

/** What the job sees in each mode (SkyPilot's semantics, as Skydeck runs them with rclone). */
export const MODE_EFFECT: Record<MountMode, string> = {
  MOUNT: 'reads streamed, writes go to the bucket',
  COPY: 'objects downloaded before setup; the job sees plain files and its writes stay on the node',
  MOUNT_CACHED: 'mounted with a local write cache; writes are uploaded before the job counts as finished',
};

const STORE_LABEL: Record<StoreKind, string> = { s3: 's3 bucket', gcs: 'gcs bucket', r2: 'r2 bucket', azure: 'azure container' };

function lifetime(persistent: boolean): string {
  return persistent ? 'kept after down' : 'deleted at down (persistent: false)';
}

function uploads(m: Extract<BucketMount, { kind: 'named' }>): string | undefined {
  const from = m.localSource ?? m.localFiles?.join(', ');
  return from === undefined ? undefined : `uploads ${from} (changed files only on later launches)`;
}

/** "s3://b/p" for an existing bucket, "s3 bucket b" for one Skydeck manages. */
function bucketName(m: BucketMount): string {
  return m.kind === 'url' ? m.url : `${STORE_LABEL[m.store]} ${m.name}`;
}

/** The CodeLens title: where the entry comes from and what happens to it. */
export function fileMountLensText(m: FileMount): string {
  switch (m.kind) {
    case 'copy':
      return `local ${m.source} → copied to every node`;
    case 'deferred':
      return 'bucket named by an env given at launch · checked at launch';
    case 'unsupported':
      return `${m.store} storage · not supported by Skydeck: launch refuses it`;
    case 'bucket': {
      const b = m.mount;
      if (b.kind === 'url') return `${b.url} · existing ${STORE_LABEL[b.store]} · ${b.mode} · never created or deleted by Skydeck`;
      return [bucketName(b), b.mode, 'created by Skydeck if missing', uploads(b), lifetime(b.persistent)].filter(Boolean).join(' · ');
    }
  }
}

/** The CodeLens title of `workdir: {url, ref}`. */
export function gitWorkdirLensText(w: GitWorkdir): string {
  return `git repo ${w.url} at ${w.ref ?? 'its default branch'} → cloned to ~/sky_workdir on every node`;
}

/**
 * The hover sentence (Markdown) for the entry at destination `dst`, e.g.
 * "**MOUNT** of `s3://b/p` at `/data` — reads streamed, writes go to the bucket."
 */
export function fileMountHoverText(dst: string, m: FileMount): string {
  const at = `at ${code(dst)}`;
  switch (m.kind) {
    case 'copy':
      return `The local path ${code(m.source)} is copied to every node ${at} before setup.`;
    case 'deferred':
      return `A bucket ${at} whose name comes from an env given at launch; it is checked then.`;
    case 'unsupported':
      return `${code(m.store)} storage ${at}: Skydeck mounts S3, GCS, Azure Blob and R2 buckets only, so launching this task is refused.`;
    case 'bucket': {
      const b = m.mount;
      const head = `**${b.mode}** of ${code(b.kind === 'url' ? b.url : bucketName(b))} ${at} — ${MODE_EFFECT[b.mode]}.`;
      if (b.kind === 'url') return `${head} An existing bucket: Skydeck never creates or deletes it.`;
      const up = uploads(b);
      return `${head} Skydeck creates the bucket if it is missing (and reuses one it created)${up ? `, ${up}` : ''}; ` +
        (b.persistent ? 'it is kept after the cluster is torn down.' : 'it is deleted, with proof, when the cluster that created it is torn down.');
    }
  }
}

/** The hover sentence (Markdown) for a git workdir. */
export function gitWorkdirHoverText(w: GitWorkdir): string {
  return `The git repository ${code(w.url)} is cloned to ${code('~/sky_workdir')} on every node at ` +
    `${w.ref ? code(w.ref) : 'its default branch'}; a private repository is reached with GIT_TOKEN or your ssh key.`;
}

/** A Markdown code span that holds any text (backticks in it get a longer fence). */
export function code(s: string): string {
  const runs = s.match(/`+/g) ?? [];
  const fence = '`'.repeat(Math.max(0, ...runs.map((r) => r.length)) + 1);
  const pad = s.startsWith('`') || s.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${s}${pad}${fence}`;
}

/** The CodeLens title of a local `workdir:` (resolved as a launch from the editor resolves it). */
export function localWorkdirLensText(resolved: string): string {
  return `workdir ${printable(resolved)} → ~/sky_workdir`;
}

/** The hover sentence (Markdown) for a local workdir. */
export function localWorkdirHoverText(resolved: string, base: string): string {
  return `Uploaded from ${code(printable(resolved))} to ${code('~/sky_workdir')} on every node. A relative workdir resolves ` +
    `against the workspace folder ${code(printable(base))}, as \`sky\` resolves it against the folder it runs in.`;
}
