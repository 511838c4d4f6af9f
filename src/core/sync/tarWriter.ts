/**
 * Minimal POSIX tar (ustar + pax headers for long names) so workdir sync needs no tar binary
 * on the user's machine (Windows laptops included). Only what sync needs: files, dirs, symlinks.
 */
const BLOCK = 512;

export interface TarEntry {
  path: string; // posix, relative
  type: 'file' | 'dir' | 'symlink';
  mode: number;
  mtime: number; // seconds
  size?: number; // files
  linkTarget?: string; // symlinks
}

export function entryHeader(e: TarEntry): Buffer {
  const name = e.type === 'dir' && !e.path.endsWith('/') ? `${e.path}/` : e.path;
  const pax: string[] = [];
  if (Buffer.byteLength(name) > 100) pax.push(paxRecord('path', name));
  if (e.linkTarget && Buffer.byteLength(e.linkTarget) > 100) pax.push(paxRecord('linkpath', e.linkTarget));
  const parts: Buffer[] = [];
  if (pax.length) {
    const body = Buffer.from(pax.join(''));
    parts.push(ustar({ name: 'PaxHeader', type: 'x', size: body.length, mode: 0o644, mtime: e.mtime }), padded(body));
  }
  parts.push(
    ustar({
      name: truncateUtf8(name, 100),
      type: e.type === 'file' ? '0' : e.type === 'dir' ? '5' : '2',
      size: e.type === 'file' ? e.size ?? 0 : 0,
      mode: e.mode & 0o7777,
      mtime: e.mtime,
      linkname: e.linkTarget ? truncateUtf8(e.linkTarget, 100) : '',
    }),
  );
  return Buffer.concat(parts);
}

/** Zero bytes that round a file body up to a whole block. */
export function bodyPadding(size: number): Buffer {
  return Buffer.alloc((BLOCK - (size % BLOCK)) % BLOCK);
}

export const END_OF_ARCHIVE = Buffer.alloc(BLOCK * 2);

function ustar(h: { name: string; type: string; size: number; mode: number; mtime: number; linkname?: string }): Buffer {
  const b = Buffer.alloc(BLOCK);
  b.write(h.name, 0, 100, 'utf8');
  octal(b, 100, 8, h.mode);
  octal(b, 108, 8, 0);
  octal(b, 116, 8, 0);
  octal(b, 124, 12, h.size);
  octal(b, 136, 12, Math.max(0, Math.floor(h.mtime)));
  b.fill(0x20, 148, 156); // checksum is computed with its own field as spaces
  b.write(h.type, 156, 1, 'latin1');
  b.write(h.linkname ?? '', 157, 100, 'utf8');
  b.write('ustar\u000000', 257, 8, 'latin1');
  let sum = 0;
  for (const byte of b) sum += byte;
  b.write(sum.toString(8).padStart(6, '0') + '\u0000 ', 148, 8, 'latin1');
  return b;
}

function octal(b: Buffer, off: number, len: number, n: number): void {
  b.write(n.toString(8).padStart(len - 1, '0') + '\u0000', off, len, 'latin1');
}

function paxRecord(key: string, value: string): string {
  // The length prefix counts itself, so find the fixed point.
  const body = ` ${key}=${value}\n`;
  let len = Buffer.byteLength(body);
  while (String(len).length + Buffer.byteLength(body) !== len) len = String(len).length + Buffer.byteLength(body);
  return `${len}${body}`;
}

function padded(b: Buffer): Buffer {
  return Buffer.concat([b, bodyPadding(b.length)]);
}

function truncateUtf8(s: string, max: number): string {
  let out = s;
  while (Buffer.byteLength(out) > max) out = out.slice(0, -1);
  return out;
}
