/**
 * How much output the terminal parses in one go (a ping waits behind at most one slice). The
 * host's batch size: smaller slices let the page render more often, which costs throughput
 * (64 KB: -20% in bench/ui-logs.ts) without making pings meaningfully faster.
 */
export const SLICE_BYTES = 256 * 1024;

interface Item {
  data: Uint8Array | string;
  done?: () => void;
}

/**
 * Feeds the terminal one slice at a time, each from a fresh task. xterm.js parses a whole
 * write before yielding, then continues with setTimeout(0); a chain of those is clamped to
 * 4 ms each by the browser (timer nesting), leaving the page idle a quarter of the time under
 * a flood. Starting every slice from a MessageChannel task keeps the chain short, and the
 * page answers other messages (pings, status) between slices.
 */
export class WriteQueue {
  private readonly items: Item[] = [];
  private busy = false;
  private readonly channel = new MessageChannel();

  constructor(private readonly write: (data: Uint8Array | string, done: () => void) => void, private readonly sliceBytes = SLICE_BYTES) {
    this.channel.port1.onmessage = () => this.feed();
  }

  push(data: Uint8Array | string, done?: () => void): void {
    if (typeof data !== 'string' && data.length > this.sliceBytes) {
      for (let at = 0; at < data.length; at += this.sliceBytes) {
        const end = Math.min(data.length, at + this.sliceBytes);
        this.items.push({ data: data.subarray(at, end), done: end === data.length ? done : undefined });
      }
    } else {
      this.items.push({ data, done });
    }
    if (!this.busy) this.feed();
  }

  /** Drops what has not reached the terminal yet (the page is being reset). */
  clear(): void {
    this.items.length = 0;
  }

  private feed(): void {
    const item = this.items.shift();
    if (!item) {
      this.busy = false;
      return;
    }
    this.busy = true;
    this.write(item.data, () => {
      item.done?.();
      if (this.items.length) this.channel.port2.postMessage(null);
      else this.busy = false;
    });
  }
}
