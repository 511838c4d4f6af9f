import * as fs from 'node:fs';
import * as path from 'node:path';
import { Readable } from 'node:stream';
import { IgnoreRules } from './ignoreRules';
import { bodyPadding, END_OF_ARCHIVE, entryHeader } from './tarWriter';

export interface ArchiveStats {
  files: number;
  bytes: number;
  ignored: number;
}

/**
 * Streams a directory as tar, honouring ignore files as SkyPilot does: `.skyignore` files
 * when the root has one, otherwise `.gitignore` files, each applying below its own directory.
 */
export function archiveDirectory(
  root: string,
  stats: ArchiveStats = { files: 0, bytes: 0, ignored: 0 },
  extraRules = '',
): Readable {
  const ignoreName = fs.existsSync(path.join(root, '.skyignore')) ? '.skyignore' : '.gitignore';
  const rules = new IgnoreRules();
  rules.add('', extraRules);
  async function* walk(rel: string): AsyncGenerator<Buffer> {
    const abs = path.join(root, rel);
    const ignoreFile = path.join(abs, ignoreName);
    if (fs.existsSync(ignoreFile)) rules.add(rel, fs.readFileSync(ignoreFile, 'utf8'));
    const entries = fs.readdirSync(abs, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1));
    for (const d of entries) {
      const childRel = rel ? `${rel}/${d.name}` : d.name;
      const childAbs = path.join(abs, d.name);
      const st = fs.lstatSync(childAbs);
      if (rules.ignores(childRel, st.isDirectory())) {
        stats.ignored++;
        continue;
      }
      const mtime = st.mtimeMs / 1000;
      if (st.isSymbolicLink()) {
        yield entryHeader({ path: childRel, type: 'symlink', mode: 0o777, mtime, linkTarget: fs.readlinkSync(childAbs) });
      } else if (st.isDirectory()) {
        yield entryHeader({ path: childRel, type: 'dir', mode: st.mode, mtime });
        yield* walk(childRel);
      } else if (st.isFile()) {
        yield entryHeader({ path: childRel, type: 'file', mode: st.mode, mtime, size: st.size });
        let sent = 0;
        for await (const chunk of fs.createReadStream(childAbs, { end: st.size - 1, highWaterMark: 1 << 20 })) {
          sent += (chunk as Buffer).length;
          yield chunk as Buffer;
        }
        if (sent !== st.size) throw new Error(`${childAbs} changed size while it was being synced; sync again`);
        yield bodyPadding(st.size);
        stats.files++;
        stats.bytes += st.size;
      }
      // Sockets, fifos and devices are not synced.
    }
  }
  async function* all(): AsyncGenerator<Buffer> {
    yield* walk('');
    yield END_OF_ARCHIVE;
  }
  return Readable.from(all(), { objectMode: false });
}

/** A single file as a one-entry archive (for file_mounts of a file). */
export function archiveFile(file: string, nameInArchive: string): Readable {
  async function* one(): AsyncGenerator<Buffer> {
    const st = fs.statSync(file);
    yield entryHeader({ path: nameInArchive, type: 'file', mode: st.mode, mtime: st.mtimeMs / 1000, size: st.size });
    for await (const chunk of fs.createReadStream(file)) yield chunk as Buffer;
    yield bodyPadding(st.size);
    yield END_OF_ARCHIVE;
  }
  return Readable.from(one(), { objectMode: false });
}
