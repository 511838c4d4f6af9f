// CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), which GCS reports for every object as
// `crc32c`: base64 of the checksum's four bytes in big-endian order (objects resource, crc32c).
const TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0x82f63b78 : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

export function crc32cBase64(data: Buffer): string {
  let c = 0xffffffff;
  for (const b of data) c = TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  const out = Buffer.alloc(4);
  out.writeUInt32BE((c ^ 0xffffffff) >>> 0);
  return out.toString('base64');
}
