const MAGIC = Buffer.from('SQLite format 3\0', 'latin1');

/**
 * Cheap structural checks on a database image before handing it to SQLite: a truncated file
 * often still "opens" and only fails on the page it lost. Returns a problem or undefined.
 */
export function checkSqliteImage(bytes: Buffer): string | undefined {
  if (bytes.length === 0) return 'the file is empty';
  if (bytes.length < 100 || !bytes.subarray(0, 16).equals(MAGIC)) return 'it is not an SQLite database';
  const raw = bytes.readUInt16BE(16);
  const pageSize = raw === 1 ? 65536 : raw;
  const changeCounter = bytes.readUInt32BE(24);
  const pageCount = bytes.readUInt32BE(28);
  const validFor = bytes.readUInt32BE(92);
  // The in-header page count is only trustworthy when it was written by the same change.
  if (validFor === changeCounter && pageCount > 0 && pageCount * pageSize !== bytes.length) {
    return `it is truncated (${bytes.length} bytes, header says ${pageCount * pageSize})`;
  }
  if (bytes.length % pageSize !== 0) return `it is truncated (${bytes.length} bytes is not a whole number of ${pageSize}-byte pages)`;
  return undefined;
}
