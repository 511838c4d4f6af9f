type FromBase64 = { fromBase64?: (s: string) => Uint8Array };

/** Decodes an append's payload; the native decoder where the webview's Chromium has one. */
export function decodeBase64(s: string): Uint8Array {
  const native = (Uint8Array as unknown as FromBase64).fromBase64;
  if (native) return native(s);
  const bin = atob(s);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}
