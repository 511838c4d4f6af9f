/** A counting semaphore: at most `size` of the functions given to run() are in flight. */
export class Slots {
  private busy = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly size: number) {}

  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.busy >= this.size) await new Promise<void>((r) => this.waiting.push(r));
    else this.busy++;
    try {
      return await fn();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.busy--;
    }
  }
}
