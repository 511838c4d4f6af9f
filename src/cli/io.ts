/** Where CLI commands write; tests pass their own to capture output. */
export interface CliIO {
  out(text: string): void;
  /** Job output: bytes as they came, never re-encoded. */
  outBytes(data: Buffer): void;
  err(text: string): void;
}

export const processIO: CliIO = {
  out: (t) => process.stdout.write(t),
  outBytes: (d) => process.stdout.write(d),
  err: (t) => process.stderr.write(t),
};

/** Exit codes: 0 ok, 1 the operation failed, 2 bad usage or input, 3 not available yet. */
export const EXIT = { ok: 0, failed: 1, usage: 2, unavailable: 3 } as const;
