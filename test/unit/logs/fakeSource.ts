import type { LogFinal, LogFollowHooks, LogSource } from '../../../src/ui/logs/logSource';

/** A LogSource the test drives by hand: push chunks, drop the connection, end the job. */
export class FakeSource implements LogSource {
  follows: { from: number; hooks: LogFollowHooks }[] = [];
  private onChunk: ((d: Buffer, o: number) => void) | undefined;
  private settle: { resolve(f: LogFinal | undefined): void; reject(e: Error): void } | undefined;
  offset = 0;

  follow(from: number, onChunk: (d: Buffer, o: number) => void, hooks: LogFollowHooks): Promise<LogFinal | undefined> {
    this.follows.push({ from, hooks });
    this.onChunk = onChunk;
    this.offset = from;
    return new Promise((resolve, reject) => {
      this.settle = { resolve, reject };
      hooks.signal.addEventListener('abort', () => resolve(undefined), { once: true });
    });
  }

  get hooks(): LogFollowHooks {
    return this.follows[this.follows.length - 1].hooks;
  }

  push(data: string | Buffer, at = this.offset): void {
    const buf = typeof data === 'string' ? Buffer.from(data) : data;
    this.onChunk!(buf, at);
    this.offset = Math.max(this.offset, at + buf.length);
  }

  end(final: LogFinal): void {
    this.settle!.resolve(final);
  }

  fail(e: Error): void {
    this.settle!.reject(e);
  }
}

export const tick = (ms = 0) => new Promise((r) => setTimeout(r, ms));
