// Small stream helpers shared by the SSH and local transports.
import type { Readable, Writable } from 'node:stream';

/** Writes the stdin option to `target` and closes it; no stdin means close at once (EOF). */
export function feedStdin(target: Writable, stdin: Buffer | string | NodeJS.ReadableStream | undefined): void {
  target.on('error', () => undefined); // the command may exit without reading its input
  if (stdin === undefined) {
    target.end();
  } else if (typeof stdin === 'string' || Buffer.isBuffer(stdin)) {
    target.end(stdin);
  } else {
    // pipe() keeps back-pressure, so a large stream never piles up in memory. pipe() does not end
    // the target when the source fails (e.g. a file changed size mid-sync): the command would
    // wait for input forever, so its stdin is cut off and it sees a truncated stream.
    (stdin as Readable).once('error', () => target.destroy());
    stdin.pipe(target);
  }
}

/** Resolves when `r` has delivered all its data (or was destroyed). */
export function whenEnded(r: Readable | undefined): Promise<void> {
  if (!r || r.readableEnded || r.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => { r.off('end', done); r.off('close', done); resolve(); };
    r.once('end', done);
    r.once('close', done);
  });
}
