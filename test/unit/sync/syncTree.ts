// A workdir, its node copy and sync state in one temp dir, synced over the local transport:
// shared by the sync tests that play a new process (the scan memo's).
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { SyncState } from '../../../src/core/ops/syncFiles';
import { createLocalTransport } from '../../../src/core/transport/localTransport';
import { manifestFile } from '../../../src/core/sync/manifestStore';

export const python = 'python3';

export type SyncTree = ReturnType<typeof syncTree>;

export function syncTree(files: Record<string, string>, prefix = 'skydeck-synctree-') {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const src = path.join(root, 'src');
  for (const [rel, body] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(src, rel)), { recursive: true });
    fs.writeFileSync(path.join(src, rel), body);
  }
  const dst = path.join(root, 'node', 'sky_workdir');
  const state: SyncState = { nodeStateDir: path.join(root, 'node', 'base', 'sync'), localStateDir: path.join(root, 'ws', '.skydeck', 'sync') };
  const t = createLocalTransport();
  return { root, src, dst, state, t, localFile: manifestFile(state.localStateDir, t.description, dst, src) };
}
