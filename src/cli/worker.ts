// A warm CLI worker of the connection holder (`skydeck __worker`, started by workerPool.ts).
// It does a fresh CLI's slow first steps once (the bundle compiled, the task-schema validator,
// sql.js, the agent files' hash), then runs the CLI runs the holder hands over, one at a time,
// each exactly as the caller's own process would: its argv, directory, environment and umask
// (set before and reset after the run), its exit code. The state file is read afresh by every
// run, as by every CLI process (its checks skipped only for bytes this process checked before,
// checkedImage.ts); the connections to clusters stay open for the next run with the same
// workspace and environment. Ctrl-C reaches the run as the CLI's SIGINT.
import * as net from 'node:net';
import { buildId, type CliRequest } from '../core/transport/holder/cliRequest';
import { encodeFrame, FrameDecoder, type Frame } from '../core/transport/holder/frames';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { StateStore } from '../core/state';
import type { Connections } from '../core/ops';
import { agentHash } from '../core/jobs/agentBundle';
import { parseTaskText } from '../core/task/parse';
import { askHostKey, connectionReuse, hostKeyPrompt } from './opsContext';
import type { CliIO } from './io';
import { trace, traceSink } from '../core/util/trace';

/** The first steps every CLI run pays for, done before the worker says it is ready. */
async function warmUp(): Promise<void> {
  parseTaskText('run: echo warm\n');
  // A throw-away state: sql.js loaded, the schema's expected shape built, the code paths hot.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-worker-'));
  try {
    (await StateStore.openWorkspace(dir)).close();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  try { agentHash(); } catch { /* a missing agent is reported by the run that needs it */ }
}

/** Where the current run's output goes; what runs keep (connections) writes through this. */
let current: CliIO = { out: () => undefined, outBytes: () => undefined, err: () => undefined };
const io: CliIO = { out: (s) => current.out(s), outBytes: (d) => current.outBytes(d), err: (s) => current.err(s) };

/**
 * Connections (the SSH channels and agent `serve` channels behind them) stay open for the next
 * run with the same workspace and exactly the same environment; anything else gets new ones.
 */
function keepConnections(): void {
  let kept: { key: string; connections: Connections } | undefined;
  connectionReuse.get = (root, make) => {
    const key = JSON.stringify([root, Object.entries(process.env).sort(([a], [b]) => (a < b ? -1 : 1))]);
    if (kept?.key === key) return kept.connections;
    if (kept) void kept.connections.closeAll().catch(() => undefined);
    kept = { key, connections: make() };
    return kept.connections;
  };
}

type RunCli = (argv: string[], io: CliIO) => Promise<number>;

/**
 * A `warm` hint (workerPool.ts): the first steps of a run like `req`, in its environment, with
 * no output and no prompt (an unknown host key is refused, as for a caller without a terminal).
 */
async function warmFor(req: CliRequest, base: { env: NodeJS.ProcessEnv; cwd: string; umask: number }): Promise<void> {
  try {
    setProcess(req.env, req.cwd, req.umask);
    hostKeyPrompt.ask = async () => false;
    trace('worker: warming');
    const { prewarmRun } = require('./prewarm') as typeof import('./prewarm');
    await prewarmRun(req.argv, io);
    trace('worker: warm');
  } catch {
    // Nothing warmed: the run does these steps itself, and reports what fails.
  } finally {
    hostKeyPrompt.ask = askHostKey;
    setProcess(base.env, base.cwd, base.umask);
  }
}

/** `runCli` is handed in by main.ts (which requires this file lazily): no import cycle. */
export async function workerMain(runCli: RunCli): Promise<number> {
  const build = buildId(process.argv[1]);
  await warmUp();
  keepConnections();
  const base = { env: { ...process.env }, cwd: process.cwd(), umask: process.umask() };
  process.send?.({ t: 'ready' });
  return new Promise((resolve) => {
    let busy = false;
    let orphan = false;
    // A run that comes while a hint is being warmed waits for it (both set the process's env).
    let warming: Promise<void> | undefined;
    // The holder gone: finish the run under way (it goes on over a direct connection), then leave.
    process.on('disconnect', () => { orphan = true; if (!busy) resolve(0); });
    // Told to leave (the holder stops it when idle): an orderly exit; mid-run, at once as a CLI would.
    process.on('SIGTERM', () => (busy ? process.exit(143) : resolve(0)));
    process.on('message', (m: { t?: string; req?: CliRequest }, handle: unknown) => {
      if (m?.t === 'warm' && m.req && !busy && !warming && m.req.build === build) {
        warming = warmFor(m.req, base).finally(() => (warming = undefined));
        return;
      }
      if (m?.t !== 'run' || !m.req || !(handle instanceof net.Socket) || busy) return;
      busy = true;
      const req = m.req;
      void (warming ?? Promise.resolve()).then(() => runOne(req, handle, build, runCli)).catch(() => handle.destroy()).finally(() => {
        setProcess(base.env, base.cwd, base.umask);
        busy = false;
        if (orphan) resolve(0);
        else process.send?.({ t: 'done' });
      });
    });
  });
}

function setProcess(env: NodeJS.ProcessEnv | Record<string, string>, cwd: string, umask: number): void {
  process.chdir(cwd);
  for (const k of Object.keys(process.env)) delete process.env[k];
  Object.assign(process.env, env);
  process.umask(umask);
}

async function runOne(req: CliRequest, sock: net.Socket, build: string, runCli: (argv: string[], io: CliIO) => Promise<number>): Promise<void> {
  const send = (f: Frame): void => { if (!sock.destroyed) sock.write(encodeFrame(f)); };
  if (req.build !== build) { send({ t: 'fallback', why: 'the holder runs another build of Skydeck' }); sock.end(); return; }
  try {
    setProcess(req.env, req.cwd, req.umask);
  } catch (e) {
    send({ t: 'fallback', why: `cannot run there: ${(e as Error).message}` });
    sock.end();
    return;
  }
  let pendingInt = false;
  let rerun = false;
  let over = false;
  // A Ctrl-C that comes before the command listens for one is kept for its first listener: the
  // full CLI would have died there, before submitting anything.
  const replay = (event: string | symbol): void => {
    if (event === 'SIGINT' && pendingInt) { pendingInt = false; setImmediate(() => process.emit('SIGINT')); }
  };
  const interrupt = (): void => {
    if (over) return;
    if (process.listenerCount('SIGINT') > 0) process.emit('SIGINT');
    else pendingInt = true;
  };
  process.on('newListener', replay);
  const decoder = new FrameDecoder();
  sock.on('data', (chunk: Buffer) => {
    let frames: Frame[];
    try { frames = decoder.push(chunk); } catch { sock.destroy(); return; }
    if (frames.some((f) => f.t === 'sig')) interrupt();
  });
  sock.on('error', () => undefined);
  // The caller gone (killed, its terminal closed): a Ctrl-C, so nothing new starts for nobody.
  sock.on('close', interrupt);
  const chunks = (t: 'out' | 'err', b: Buffer): void => {
    if (rerun) return;
    for (let i = 0; i < b.length; i += 64 * 1024) send({ t, d: b.subarray(i, i + 64 * 1024).toString('base64') });
  };
  current = {
    out: (s) => chunks('out', Buffer.from(s)),
    outBytes: (d) => chunks('out', d),
    err: (s) => chunks('err', Buffer.from(s)),
  };
  hostKeyPrompt.ask = async (cio, host, fp, type) => {
    if (!req.tty.stdin) return askHostKey(cio, host, fp, type);
    // Only the caller's terminal can answer: stop (the connection is refused, so nothing is
    // submitted) and let the caller's own full CLI ask.
    if (!rerun) { rerun = true; send({ t: 'rerun' }); }
    return false;
  };
  send({ t: 'started', pid: process.pid });
  traceSink.write = (line) => current.err(line);
  trace('worker: run started');
  try {
    const code = await runCli(req.argv, io);
    if (!rerun) send({ t: 'exit', code });
  } finally {
    over = true;
    current = { out: () => undefined, outBytes: () => undefined, err: () => undefined };
    hostKeyPrompt.ask = askHostKey;
    process.removeListener('newListener', replay);
    process.removeAllListeners('SIGINT');
    sock.end();
  }
}
