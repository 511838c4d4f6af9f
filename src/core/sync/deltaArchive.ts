import * as fs from 'node:fs';
import { Readable } from 'node:stream';
import { createHash } from 'node:crypto';
import { bodyPadding, END_OF_ARCHIVE, entryHeader } from './tarWriter';
import { wholeSeconds, type ManifestDelta, type ManifestEntry } from './manifest';
import type { ArchiveStats } from './workdirArchive';

/**
 * The tar a manifest sync sends: meta/ops (removals and touches), meta/dirs (see dirsRecords),
 * then tree/<path> for each entry of `delta.send`. File hashes are computed on the way and put
 * on the entries. `all`: the manifest the node holds once this is applied.
 */
export function archiveDelta(root: string, delta: ManifestDelta, stats: ArchiveStats, all?: ManifestEntry[]): Readable {
  async function* gen(): AsyncGenerator<Buffer> {
    const now = Date.now() / 1000;
    const meta = (name: string, body: Buffer) => [entryHeader({ path: `meta/${name}`, type: 'file', mode: 0o600, mtime: now, size: body.length }), body, bodyPadding(body.length)];
    yield entryHeader({ path: 'meta', type: 'dir', mode: 0o700, mtime: now });
    // NUL-separated records (no path holds a NUL: manifestStore.ts entryPathProblem), so the
    // node's apply needs no json import (manifestNode.ts).
    const ops = [...delta.remove.map((p) => `r${p}`), ...delta.touch.map((e) => `t${wholeSeconds(e.m)} ${e.p}`)];
    yield* meta('ops', Buffer.from(ops.map((r) => `${r}\0`).join('')));
    if (all) yield* meta('dirs', dirsRecords(delta, all));
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

/**
 * What each directory this delta changes on the node (and the root, where the apply's temp dir
 * comes and goes) holds once applied: "d<dir>" ('' for the root), then "n<type><name>" for each
 * entry directly in it, NUL-separated. The apply checks these after its own writes, to vouch for
 * those directories at the next drift check (manifestNode.ts record_dirs), which would otherwise
 * list every one of them whole: their ctime moved with our renames.
 */
export function dirsRecords(delta: ManifestDelta, all: ManifestEntry[]): Buffer {
  const parentOf = (p: string) => { const i = p.lastIndexOf('/'); return i < 0 ? '' : p.slice(0, i); };
  const names = new Map<string, string[]>([['', []]]);
  for (const e of delta.send) {
    names.set(parentOf(e.p), []);
    if (e.t === 'd') names.set(e.p, []);
  }
  for (const p of delta.remove) names.set(parentOf(p), []);
  for (const e of all) {
    const i = e.p.lastIndexOf('/');
    names.get(i < 0 ? '' : e.p.slice(0, i))?.push(`n${e.t}${e.p.slice(i + 1)}`);
  }
  const out: string[] = [];
  for (const [d, ns] of names) out.push(`d${d}`, ...ns);
  return Buffer.from(out.map((r) => `${r}\0`).join(''));
}
