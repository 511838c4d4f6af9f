import type { Channel } from '../transport';

/** An error answered by the agent: `code` is the agent's machine-readable code. */
export class AgentError extends Error {
  constructor(readonly code: string, message: string) {
    super(message);
    this.name = 'AgentError';
  }
}

/** The serve channel went away with this request unanswered; it is safe to ask again. */
export class AgentGoneError extends Error {
  constructor(readonly detail: string) {
    super(`the agent connection closed (${detail})`);
    this.name = 'AgentGoneError';
  }
}

interface Pending {
  resolve(v: unknown): void;
  reject(e: Error): void;
  onEvent?(msg: Record<string, unknown>): void;
}

export interface Hello {
  version: string;
  protocol: number;
  pid: number;
  base_dir: string;
}

/**
 * JSON lines over one agent `serve` channel: requests carry ids, answers and stream events
 * come back tagged with them in any order. Many callers share the one channel.
 */
export class AgentRpc {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private buffered: Buffer[] = [];
  private closedWith: string | undefined;
  private stderrTail = '';
  readonly hello: Promise<Hello>;
  private readonly closeWaiters: (() => void)[] = [];

  constructor(private readonly channel: Channel) {
    let gotHello!: (h: Hello) => void;
    let noHello!: (e: Error) => void;
    this.hello = new Promise<Hello>((res, rej) => ((gotHello = res), (noHello = rej)));
    this.hello.catch(() => undefined);
    channel.onData((b) => this.onData(b, gotHello));
    channel.onStderr((b) => (this.stderrTail = (this.stderrTail + b.toString()).slice(-2000)));
    channel.onClose((code) => {
      const why = `exit ${code ?? 'by signal or lost connection'}${this.stderrTail ? `: ${this.stderrTail.trim()}` : ''}`;
      this.closedWith = why;
      noHello(new AgentGoneError(why));
      for (const p of this.pending.values()) p.reject(new AgentGoneError(why));
      this.pending.clear();
      for (const w of this.closeWaiters.splice(0)) w();
    });
  }

  get closed(): boolean {
    return this.closedWith !== undefined;
  }

  onClose(cb: () => void): void {
    if (this.closed) cb();
    else this.closeWaiters.push(cb);
  }

  /** Sends one request; `onEvent` receives stream events (e.g. log chunks) before the answer. */
  call<T>(cmd: string, args: object = {}, onEvent?: (msg: Record<string, unknown>) => void): { id: number; done: Promise<T> } {
    const id = this.nextId++;
    const done = new Promise<T>((resolve, reject) => {
      if (this.closedWith !== undefined) return reject(new AgentGoneError(this.closedWith));
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject, onEvent });
      this.channel.write(JSON.stringify({ id, cmd, args }) + '\n');
    });
    return { id, done };
  }

  request<T>(cmd: string, args: object = {}): Promise<T> {
    return this.call<T>(cmd, args).done;
  }

  close(): void {
    this.channel.end();
    this.channel.close();
  }

  private onData(b: Buffer, gotHello: (h: Hello) => void): void {
    this.buffered.push(b);
    if (!b.includes(10)) return;
    const all = Buffer.concat(this.buffered);
    let start = 0;
    for (let nl = all.indexOf(10); nl >= 0; nl = all.indexOf(10, start)) {
      const line = all.subarray(start, nl).toString('utf8');
      start = nl + 1;
      if (line.trim()) this.dispatch(line, gotHello);
    }
    this.buffered = start < all.length ? [all.subarray(start)] : [];
  }

  private dispatch(line: string, gotHello: (h: Hello) => void): void {
    let msg: Record<string, unknown>;
    try {
      msg = JSON.parse(line);
    } catch {
      return; // not ours (e.g. a stray print); the agent writes only JSON lines
    }
    if (msg.event === 'hello') return gotHello(msg as unknown as Hello);
    const p = this.pending.get(msg.id as number);
    if (!p) return;
    if (msg.event !== undefined) return p.onEvent?.(msg);
    this.pending.delete(msg.id as number);
    if (msg.ok) p.resolve(msg.result);
    else {
      const e = (msg.error ?? {}) as { code?: string; message?: string };
      p.reject(new AgentError(e.code ?? 'unknown', e.message ?? 'the agent reported an error'));
    }
  }
}
