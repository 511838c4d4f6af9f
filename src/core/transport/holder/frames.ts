// Length-prefixed JSON frames: a 4-byte big-endian length, then that many bytes of UTF-8 JSON
// holding one object with a string `t` (its type). A frame that is too long, not JSON or not
// such an object is a FrameError: the reader closes the stream, it never guesses.

/** Big enough for a 64 KiB output chunk in base64 plus its envelope; nothing larger is sent. */
export const MAX_FRAME = 256 * 1024;

export class FrameError extends Error {}

export interface Frame { t: string; [k: string]: unknown }

export function encodeFrame(msg: Frame): Buffer {
  const body = Buffer.from(JSON.stringify(msg), 'utf8');
  if (body.length > MAX_FRAME) throw new FrameError(`frame of ${body.length} bytes is over ${MAX_FRAME}`);
  const head = Buffer.alloc(4);
  head.writeUInt32BE(body.length, 0);
  return Buffer.concat([head, body]);
}

/** Collects bytes and hands out whole frames; throws FrameError on the first bad one. */
export class FrameDecoder {
  private buf: Buffer = Buffer.alloc(0);

  push(chunk: Buffer): Frame[] {
    this.buf = this.buf.length ? Buffer.concat([this.buf, chunk]) : chunk;
    const out: Frame[] = [];
    while (this.buf.length >= 4) {
      const n = this.buf.readUInt32BE(0);
      // Refused from the header alone: a huge length is never waited for or buffered.
      if (n > MAX_FRAME) throw new FrameError(`frame length ${n} is over ${MAX_FRAME}`);
      if (this.buf.length < 4 + n) break;
      const body = this.buf.subarray(4, 4 + n);
      this.buf = this.buf.subarray(4 + n);
      let msg: unknown;
      try {
        msg = JSON.parse(body.toString('utf8'));
      } catch {
        throw new FrameError('frame is not JSON');
      }
      if (!msg || typeof msg !== 'object' || Array.isArray(msg) || typeof (msg as Frame).t !== 'string') {
        throw new FrameError('frame is not an object with a string "t"');
      }
      out.push(msg as Frame);
    }
    return out;
  }
}
