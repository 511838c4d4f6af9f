import type { Channel } from '../transport';
import type { AgentCommand, ArgsOf, Hello, ResultOf } from './commands';
import type { LogEvent, LogHeader } from './protocol';
import { AgentProtocolError } from './protocolError';
import { ERROR, HELLO, LOG_HEADER, logBytesOk, RESULT_CHECKS } from './protocolChecks';
import { describe, isObj } from './shape';

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
  cmd: AgentCommand;
  resolve(v: unknown): void;
  reject(e: Error): void;
  onEvent?(ev: LogEvent): void;
}

export type { Hello };

/**
 * The longest answer line taken (a full queue of a million jobs is ~150 MB). A longer one is
 * refused before it is made a string: past V8's string limit (~512 MiB) that would throw out of
 * the data handler and end the process.
 */
export const MAX_LINE_BYTES = 256 * 1024 * 1024;

/**
 * JSON lines over one agent `serve` channel: requests carry ids, answers and stream events
 * come back tagged with them in any order. Many callers share the one channel.
 */
export class AgentRpc {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private buffered: Buffer[] = [];
  private bufferedBytes = 0;
  /** The raw bytes of a log event still to come after its header line. */
  private raw: { left: number; parts: Buffer[]; deliver: (data: Buffer) => void } | undefined;
  private closedWith: string | undefined;
  private stderrTail = '';
  readonly hello: Promise<Hello>;
  private readonly closeWaiters: (() => void)[] = [];

  /** `where` (e.g. the transport's description) goes into protocol error messages. */
  constructor(private readonly channel: Channel, private readonly where?: string, private readonly maxLine = MAX_LINE_BYTES) {
    let gotHello!: (h: Hello) => void;
    let noHello!: (e: Error) => void;
    this.hello = new Promise<Hello>((res, rej) => ((gotHello = res), (noHello = rej)));
    this.hello.catch(() => undefined);
    channel.onData((b) => this.onData(b, gotHello, noHello));
    channel.onStderr((b) => (this.stderrTail = (this.stderrTail + b.toString()).slice(-2000)));
    channel.onClose((code) => {
      const why = `exit ${code ?? 'by signal or lost connection'}${this.stderrTail ? `: ${this.stderrTail.trim()}` : ''}`;
      this.closedWith ??= why; // a protocol error that closed the channel stays the reason
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

  /**
   * Sends one request; `onEvent` receives its stream events (a `logs` request's chunks) before
   * the answer. Answers and events are checked (protocolChecks.ts) before anyone sees them.
   */
  start<K extends AgentCommand>(cmd: K, args: ArgsOf<K>, onEvent?: (ev: LogEvent) => void): { id: number; done: Promise<ResultOf<K>> } {
    const id = this.nextId++;
    const done = new Promise<ResultOf<K>>((resolve, reject) => {
      if (this.closedWith !== undefined) return reject(new AgentGoneError(this.closedWith));
      this.pending.set(id, { cmd, resolve: resolve as (v: unknown) => void, reject, onEvent });
      this.channel.write(JSON.stringify({ id, cmd, args }) + '\n');
    });
    return { id, done };
  }

  request<K extends AgentCommand>(cmd: K, args: ArgsOf<K>): Promise<ResultOf<K>> {
    return this.start(cmd, args).done;
  }

  close(): void {
    this.channel.end();
    this.channel.close();
  }

  private onData(b: Buffer, gotHello: (h: Hello) => void, noHello: (e: Error) => void): void {
    let rest = b;
    while (rest.length && this.closedWith === undefined) {
      if (this.raw) {
        const take = Math.min(this.raw.left, rest.length);
        this.raw.parts.push(rest.subarray(0, take));
        this.raw.left -= take;
        rest = rest.subarray(take);
        if (this.raw.left === 0) this.endRaw();
        continue;
      }
      const nl = rest.indexOf(10);
      if (nl < 0) {
        this.buffered.push(rest);
        this.bufferedBytes += rest.length;
        if (this.bufferedBytes > this.maxLine) this.tooLong(noHello);
        return;
      }
      if (this.bufferedBytes + nl > this.maxLine) return this.tooLong(noHello);
      const line = (this.buffered.length ? Buffer.concat([...this.buffered, rest.subarray(0, nl)]) : rest.subarray(0, nl)).toString('utf8');
      this.buffered = [];
      this.bufferedBytes = 0;
      rest = rest.subarray(nl + 1);
      if (line.trim()) this.dispatch(line, gotHello, noHello);
    }
  }

  /** A log event's bytes are all here: copied out (the channel's buffers are not ours to keep). */
  private endRaw(): void {
    const { parts, deliver } = this.raw!;
    this.raw = undefined;
    deliver(Buffer.concat(parts));
  }

  /** An over-long line: every request on this channel fails, and the channel is closed. */
  private tooLong(noHello: (e: Error) => void): void {
    const e = new AgentProtocolError('serve', `a line longer than ${this.maxLine} bytes`, this.where);
    this.buffered = [];
    this.bufferedBytes = 0;
    this.closedWith = e.message;
    noHello(e);
    for (const p of this.pending.values()) p.reject(e);
    this.pending.clear();
    this.close();
  }

  private dispatch(line: string, gotHello: (h: Hello) => void, noHello: (e: Error) => void): void {
    let msg: unknown;
    try {
      msg = JSON.parse(line);
    } catch {
      return; // not ours (e.g. a stray print); the agent writes only JSON lines
    }
    if (!isObj(msg)) return;
    if (msg.event === 'hello') {
      const problem = HELLO(msg, '');
      return problem ? noHello(this.malformed('hello', problem)) : gotHello(msg as unknown as Hello);
    }
    const id = msg.id as number;
    if (msg.event === 'log') return this.logHeader(id, msg);
    const p = this.pending.get(id);
    if (!p) return;
    if (msg.event !== undefined) return; // an event kind this client does not know: a newer agent's
    if (msg.ok === true) {
      const problem = RESULT_CHECKS[p.cmd](msg.result, '');
      return problem ? this.settle(id, p, this.malformed(p.cmd, problem)) : this.settle(id, p, undefined, msg.result);
    }
    if (msg.ok !== false) return this.settle(id, p, this.malformed(p.cmd, `ok: expected true or false, got ${describe(msg.ok)}`));
    const problem = ERROR(msg.error, 'error');
    if (problem) return this.settle(id, p, this.malformed(p.cmd, problem));
    const e = msg.error as { code: string; message: string };
    this.settle(id, p, new AgentError(e.code, e.message));
  }

  /**
   * A log header: its raw bytes follow, whoever waits for them. A header whose length cannot be
   * trusted leaves the stream unreadable, so the channel is closed.
   */
  private logHeader(id: number, msg: Record<string, unknown>): void {
    const problem = LOG_HEADER(msg, 'event');
    const p = this.pending.get(id);
    if (problem && !logBytesOk(msg.bytes)) return this.unreadable(p?.cmd ?? 'logs', problem);
    this.raw = {
      left: msg.bytes as number,
      parts: [],
      deliver: (data) => {
        const waiting = this.pending.get(id);
        if (!waiting) return;
        if (!problem) return waiting.onEvent?.({ event: 'log', offset: (msg as unknown as LogHeader).offset, data });
        // End the stream on the agent too; the answer to this request has no taker.
        this.channel.write(JSON.stringify({ id: this.nextId++, cmd: 'unfollow', args: { request: id } }) + '\n');
        this.settle(id, waiting, this.malformed(waiting.cmd, problem));
      },
    };
    if (this.raw.left === 0) this.endRaw();
  }

  /** Every request on this channel fails with `problem`, and the channel is closed. */
  private unreadable(cmd: AgentCommand, problem: string): void {
    const e = this.malformed(cmd, problem);
    this.closedWith = e.message;
    for (const p of this.pending.values()) p.reject(e);
    this.pending.clear();
    this.close();
  }

  private settle(id: number, p: Pending, error: Error | undefined, result?: unknown): void {
    this.pending.delete(id);
    if (error) p.reject(error);
    else p.resolve(result);
  }

  private malformed(cmd: string, problem: string): AgentProtocolError {
    return new AgentProtocolError(cmd, problem, this.where);
  }
}
