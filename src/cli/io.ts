import * as readline from 'node:readline';

/** Where CLI commands write; tests pass their own to capture output. */
export interface CliIO {
  out(text: string): void;
  /** Job output: bytes as they came, never re-encoded. */
  outBytes(data: Buffer): void;
  err(text: string): void;
  /** Asks the user a question and returns the answer; absent when nobody can answer (no terminal). */
  ask?(question: string): Promise<string>;
}

export const processIO: CliIO = {
  out: (t) => process.stdout.write(t),
  outBytes: (d) => process.stdout.write(d),
  err: (t) => process.stderr.write(t),
  ask: process.stdin.isTTY ? (q) => new Promise((resolve) => {
    const rl = readline.createInterface({ input: process.stdin, output: process.stderr });
    rl.question(q, (a) => { rl.close(); resolve(a); });
  }) : undefined,
};

/** Exit codes: 0 ok, 1 the operation failed, 2 bad usage or input, 3 not available yet. */
export const EXIT = { ok: 0, failed: 1, usage: 2, unavailable: 3 } as const;
