import * as fs from 'node:fs';
import { Readable } from 'node:stream';
import { createHash } from 'node:crypto';
import { bodyPadding, END_OF_ARCHIVE, entryHeader } from './tarWriter';
import { wholeSeconds, type ManifestDelta, type ManifestEntry } from './manifest';
import type { ArchiveStats } from './workdirArchive';

/**
 * The tar a manifest sync sends: meta/ops (removals and touches), then tree/<path> for
 * each entry of `delta.send`. File hashes are computed on the way and put on the entries.
 */
export function archiveDelta(root: string, delta: ManifestDelta, stats: ArchiveStats): Readable {
  async function* gen(): AsyncGenerator<Buffer> {
    const now = Date.now() / 1000;
    const meta = (name: string, body: Buffer) => [entryHeader({ path: `meta/${name}`, type: 'file', mode: 0o600, mtime: now, size: body.length }), body, bodyPadding(body.length)];
    yield entryHeader({ path: 'meta', type: 'dir', mode: 0o700, mtime: now });
    // NUL-separated records (no path holds a NUL: manifestStore.ts entryPathProblem), so the
    // node's apply needs no json import (manifestNode.ts).
    const ops = [...delta.remove.map((p) => `r${p}`), ...delta.touch.map((e) => `t${wholeSeconds(e.m)} ${e.p}`)];
    yield* meta('ops', Buffer.from(ops.map((r) => `${r}\0`).join('')));
    yield entryHeader({ path: 'tree', type: 'dir', mode: 0o700, mtime: now });
    for (const e of delta.send) {
      const mtime = e.m / 1000;
      const path = `tree/${e.p}`;
      if (e.t === 'd') yield entryHeader({ path, type: 'dir', mode: e.x, mtime });
      else if (e.t === 'l') yield entryHeader({ path, type: 'symlink', mode: 0o777, mtime, linkTarget: e.l });
      else {
        yield entryHeader({ path, type: 'file', mode: e.x, mtime, size: e.s });
        const h = createHash('sha256');
        let sent = 0;
        if (e.s > 0) {
          for await (const chunk of fs.createReadStream(`${root}/${e.p}`, { end: e.s - 1, highWaterMark: 1 << 20 })) {
            sent += (chunk as Buffer).length;
            h.update(chunk as Buffer);
            yield chunk as Buffer;
          }
        }
        if (sent !== e.s) throw new Error(`${root}/${e.p} changed size while it was being synced; sync again`);
        e.h = h.digest('hex');
        yield bodyPadding(e.s);
        stats.files++;
        stats.bytes += e.s;
      }
    }
    yield END_OF_ARCHIVE;
  }
  return Readable.from(gen(), { objectMode: false });
}
