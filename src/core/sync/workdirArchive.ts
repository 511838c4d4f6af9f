import * as fs from 'node:fs';
import { Readable } from 'node:stream';
import { walkWorkdir } from './workdirWalk';
import { bodyPadding, END_OF_ARCHIVE, entryHeader } from './tarWriter';

export interface ArchiveStats {
  files: number;
  bytes: number;
  ignored: number;
}

/** Streams a directory as tar: the entries walkWorkdir yields (ignore files honoured). */
export function archiveDirectory(
  root: string,
  stats: ArchiveStats = { files: 0, bytes: 0, ignored: 0 },
  extraRules = '',
): Readable {
  async function* all(): AsyncGenerator<Buffer> {
    for (const { rel, abs, stat: st } of walkWorkdir(root, extraRules, () => stats.ignored++)) {
      const mtime = st.mtimeMs / 1000;
      if (st.isSymbolicLink()) {
        yield entryHeader({ path: rel, type: 'symlink', mode: 0o777, mtime, linkTarget: fs.readlinkSync(abs) });
      } else if (st.isDirectory()) {
        yield entryHeader({ path: rel, type: 'dir', mode: st.mode, mtime });
      } else if (st.isFile()) {
        yield entryHeader({ path: rel, type: 'file', mode: st.mode, mtime, size: st.size });
        let sent = 0;
        for await (const chunk of fs.createReadStream(abs, { end: st.size - 1, highWaterMark: 1 << 20 })) {
          sent += (chunk as Buffer).length;
          yield chunk as Buffer;
        }
        if (sent !== st.size) throw new Error(`${abs} changed size while it was being synced; sync again`);
        yield bodyPadding(st.size);
        stats.files++;
        stats.bytes += st.size;
      }
      // Sockets, fifos and devices are not synced.
    }
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
