// Text from a task file (or its name) shown in a message may hold any bytes; written raw to a
// terminal, control characters would move the cursor, recolour or retitle it. Every message
// that quotes input goes through printable(), which makes them visible escapes instead.

// Controls (C0, DEL, C1), format characters (bidi overrides, zero-width), lone surrogates,
// private-use code points, and line/paragraph separators.
const HIDDEN = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\u2028\u2029]/gu;

/** `s` with every non-printable character as a `\xNN` / `\uNNNN` escape. Idempotent. */
export function printable(s: string): string {
  return s.replace(HIDDEN, (c) => {
    const code = c.codePointAt(0)!;
    if (code < 0x100) return `\\x${code.toString(16).padStart(2, '0')}`;
    if (code < 0x10000) return `\\u${code.toString(16).padStart(4, '0')}`;
    return `\\u{${code.toString(16)}}`;
  });
}
