// State changes of a fake cloud happen `steps` × stepMs later, never at once; close() cancels
// the pending ones so a stopped fake leaves no timer behind.
export abstract class SteppedModel {
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(readonly stepMs: number) {}

  later(steps: number, fn: () => void): void {
    const t = setTimeout(() => {
      this.timers.delete(t);
      fn();
    }, this.stepMs * steps);
    this.timers.add(t);
  }

  close(): void {
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }
}
