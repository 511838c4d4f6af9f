// The holder's warm CLI workers (`skydeck __worker`, src/cli/worker.ts): processes that have the
// CLI loaded and its slow first steps done, each running one CLI run at a time handed over with
// the client's socket (cliRequest.ts). Kept small: one spare at start, more only while runs
// overlap (up to MAX_WORKERS), idle ones beyond MAX_IDLE leave, and each leaves after
// MAX_RUNS runs so nothing one run leaves in a process lives long.
import { spawn, type ChildProcess } from 'node:child_process';
import type * as net from 'node:net';
import * as os from 'node:os';
import { encodeFrame, type Frame } from './frames';
import { checkCliRequest, type CliRequest } from './cliRequest';

export const MAX_WORKERS = 4;
const MAX_IDLE = 2;
export const MAX_RUNS = 50;
/** A run waits this long for a worker still starting, then the caller runs the full CLI itself. */
const WAIT_MS = 10_000;

interface Worker { child: ChildProcess; ready: boolean; busy: boolean; runs: number }
interface Waiting { sock: net.Socket; req: CliRequest; timer: NodeJS.Timeout }

export class WorkerPool {
  private readonly workers = new Set<Worker>();
  private readonly waiting: Waiting[] = [];
  private stopped = false;
  /** The likeliest next run (the last hint or run): a worker that is ready opens its connections. */
  private next: CliRequest | undefined;

  /** `args`: the worker's argv after the node binary (…/cli-main.js __worker). */
  constructor(private readonly args: string[], private readonly log: (m: string) => void) {}

  /** Starts the first spare, so the run after the one that started the holder finds it warm. */
  warm(): void {
    if (!this.workers.size) this.spawnOne();
  }

  /** A `warm` hint (cliRequest.ts): idle workers get ready for a run like it. */
  hint(frame: Frame): void {
    const req = checkCliRequest(frame, 'warm');
    if (typeof req === 'string' || this.stopped) return;
    this.next = req;
    for (const w of this.workers) if (w.ready && !w.busy) warmWorker(w, req);
  }

  handle(sock: net.Socket, frame: Frame): void {
    const req = checkCliRequest(frame);
    if (typeof req === 'string') return refuse(sock, `bad request: ${req}`);
    if (this.stopped) return refuse(sock, 'the holder is stopping');
    const idle = [...this.workers].find((w) => w.ready && !w.busy);
    if (idle) return this.assign(idle, sock, req);
    const starting = [...this.workers].filter((w) => !w.ready).length;
    if (starting <= this.waiting.length) {
      if (this.workers.size >= MAX_WORKERS) return refuse(sock, `all ${MAX_WORKERS} workers are busy`);
      this.spawnOne();
    }
    const waiting: Waiting = { sock, req, timer: setTimeout(() => this.giveUp(waiting), WAIT_MS) };
    this.waiting.push(waiting);
    sock.once('close', () => this.giveUp(waiting, false));
  }

  /** Idle workers leave now; busy ones after their run (they see the channel close). */
  stop(): void {
    this.stopped = true;
    for (const w of this.waiting.splice(0)) { clearTimeout(w.timer); refuse(w.sock, 'the holder is stopping'); }
    for (const w of this.workers) {
      if (!w.busy) w.child.kill('SIGTERM');
      else if (w.child.connected) w.child.disconnect();
    }
  }

  get size(): number {
    return this.workers.size;
  }

  private giveUp(w: Waiting, answer = true): void {
    const i = this.waiting.indexOf(w);
    if (i < 0) return;
    this.waiting.splice(i, 1);
    clearTimeout(w.timer);
    if (answer) refuse(w.sock, 'no warm worker in time');
  }

  private assign(w: Worker, sock: net.Socket, req: CliRequest): void {
    w.busy = true;
    this.next = { ...req, t: 'warm' };
    // The socket moves to the worker; the holder's copy is closed once sent.
    w.child.send({ t: 'run', req }, sock, (err) => {
      if (!err) return;
      w.busy = false;
      refuse(sock, `could not hand the run to a worker: ${err.message}`);
    });
  }

  private spawnOne(): void {
    const child = spawn(process.execPath, this.args, {
      stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
      // Each run sets its caller's directory; between runs the worker keeps none busy.
      cwd: os.homedir(),
      env: process.env,
    });
    const w: Worker = { child, ready: false, busy: false, runs: 0 };
    this.workers.add(w);
    child.on('error', (e) => this.log(`worker failed to start: ${e.message}`));
    child.on('exit', () => {
      this.workers.delete(w);
      if (!this.waiting.length || this.stopped || [...this.workers].some((x) => !x.ready)) return;
      // Runs were waiting: a worker that died starting is not retried (the callers run the full
      // CLI); one that served and left is replaced.
      if (w.ready) this.spawnOne();
      else for (const q of this.waiting.splice(0)) { clearTimeout(q.timer); refuse(q.sock, 'the worker failed to start'); }
    });
    child.on('message', (m: { t?: string }) => {
      if (m?.t === 'ready') {
        w.ready = true;
        if (this.next && !this.waiting.length) warmWorker(w, this.next);
      }
      else if (m?.t === 'done') { w.busy = false; w.runs++; }
      else return;
      if (w.runs >= MAX_RUNS || this.stopped) { child.kill('SIGTERM'); return; }
      const next = this.waiting.shift();
      if (next) { clearTimeout(next.timer); return this.assign(w, next.sock, next.req); }
      if ([...this.workers].filter((x) => x.ready && !x.busy).length > MAX_IDLE) child.kill('SIGTERM');
    });
  }
}

/** Nothing runs: the worker opens the state and the cluster's agent channel for a run like `req`. */
function warmWorker(w: Worker, req: CliRequest): void {
  if (w.child.connected) w.child.send({ t: 'warm', req }, (err) => void err);
}

function refuse(sock: net.Socket, why: string): void {
  if (!sock.destroyed) sock.end(encodeFrame({ t: 'fallback', why }));
}
