// Connects a real host-side LogSession (in Node) to the page in Chromium: the session's posts
// become window messages, the page's posts go to session.handle. Messages keep their order.
import type { LogSession } from '../../src/ui/logs/logSession';
import type { HostMessage } from '../../src/ui/logs/protocol';
import type { LogPage } from './harness';

export class HostBridge {
  private page: LogPage | undefined;
  private queue: HostMessage[] = [];
  private chain: Promise<void> = Promise.resolve();
  private scheduled = false;
  /** Bytes of JSON that crossed to the page (what VS Code's IPC would carry). */
  wireBytes = 0;

  /** Pass as the session's `post`. */
  readonly post = (m: HostMessage): void => {
    this.queue.push(m);
    if (this.scheduled) return;
    this.scheduled = true;
    // Everything posted in one turn travels in one DevTools call: fewer round-trips, same order.
    setImmediate(() => {
      this.scheduled = false;
      const batch = this.queue.splice(0);
      for (const b of batch) if (b.type === 'append') this.wireBytes += b.data.length;
      if (this.page) {
        const page = this.page;
        this.chain = this.chain.then(() => page.send(...batch)).catch(() => undefined);
      }
    });
  };

  attach(page: LogPage, session: LogSession): () => void {
    this.page = page;
    const off = page.onMessage((m) => session.handle(m));
    for (const m of page.posted) session.handle(m); // the `ready` that came before we listened
    return off;
  }

  /** Resolves when everything queued so far has been delivered. */
  async drained(): Promise<void> {
    await new Promise((r) => setImmediate(r));
    await this.chain;
  }
}
