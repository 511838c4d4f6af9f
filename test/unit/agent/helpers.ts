// Shared helpers for the agent tests and the agent benchmark: run the agent (CLI or serve),
// wait for conditions, and inspect/clean up the processes it started. No mocha globals here.
import assert from 'node:assert/strict';
import { spawn, spawnSync, ChildProcess } from 'node:child_process';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

// The system interpreter starts in ~10 ms; the `python3` on PATH may be a slow pyenv shim.
// SKYDECK_TEST_PYTHON runs the agent under another interpreter (e.g. a Python 3.8 build).
export const PY = process.env.SKYDECK_TEST_PYTHON || '/usr/bin/python3';
export const AGENT = path.resolve(__dirname, '../../../agent/skydeck_agent.py');
export const MACHINE = { x64: 'x86_64', arm64: 'aarch64' }[os.arch() as string] ?? os.arch();
/** The static waiter (native/skydeck_wait.c) built for this machine. */
export const WAITER = path.resolve(__dirname, '../../../agent/bin', `skydeck-wait-${MACHINE}`);

/** Fails loudly, with the command that builds it, where the waiter was not built. */
export function requireWaiter(): void {
  assert.ok(
    fs.existsSync(WAITER),
    `${WAITER} is missing: build it with \`node scripts/build-waiter.mjs\` (npm run build does; it needs a C compiler: apt-get install gcc)`,
  );
}

export type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

export interface AgentResponse {
  id?: Json;
  ok: boolean;
  result?: Json;
  error?: { code: string; message: string; details?: Json };
}

export interface CliResult {
  code: number | null;
  /** The signal that ended it, if one did (a CLI killed by something else: say which). */
  signal?: NodeJS.Signals | null;
  stdout: Buffer;
  stderr: string;
  /** stdout parsed as the JSON answer (undefined for `logs`, whose stdout is raw bytes). */
  json?: AgentResponse;
}

/** Environment for agent processes in tests: fast daemon ticks, quick idle exit. */
export function agentEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    SKYDECK_TICK_INTERVAL: '0.3',
    SKYDECK_DAEMON_IDLE_EXIT: '3',
    ...extra,
  };
}

export function runAgent(
  base: string,
  args: string[],
  opts: { input?: string | Buffer; env?: NodeJS.ProcessEnv; timeoutMs?: number; uid?: number; gid?: number } = {},
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(PY, [AGENT, '--base', base, ...args], {
      env: opts.env ?? agentEnv(),
      stdio: ['pipe', 'pipe', 'pipe'],
      uid: opts.uid,
      gid: opts.gid,
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`agent ${args.join(' ')} timed out`));
    }, opts.timeoutMs ?? 30000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const stdout = Buffer.concat(out);
      const res: CliResult = { code, signal, stdout, stderr: Buffer.concat(err).toString('utf8') };
      if (args[0] !== 'logs') {
        try {
          res.json = JSON.parse(stdout.toString('utf8'));
        } catch {
          /* left undefined: the test asserts on it */
        }
      }
      resolve(res);
    });
    // A command that does not read stdin (or stops at an error) may exit before the input is
    // written: EPIPE then says nothing about the command; its exit code and answer do.
    child.stdin.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code !== 'EPIPE') reject(e);
    });
    child.stdin.end(opts.input ?? '');
  });
}

/** Run a CLI command that must succeed; returns its result object. */
export async function cli(base: string, args: string[], input?: Json, env?: NodeJS.ProcessEnv): Promise<Json> {
  const res = await runAgent(base, args, {
    input: input === undefined ? '' : JSON.stringify(input),
    env,
  });
  if (res.code !== 0 || !res.json?.ok) {
    throw new Error(`agent ${args.join(' ')} failed (${res.code}): ${res.stdout}${res.stderr}`);
  }
  return res.json.result;
}

export interface LogStream {
  data: Buffer;
  chunks: { offset: number; length: number }[];
  final: AgentResponse;
}

/** A tiny client for `serve`: JSON lines, request ids, multiplexed log streams. */
export class ServeClient {
  readonly proc: ChildProcess;
  readonly hello: Promise<Json>;
  readonly exited: Promise<number | null>;
  readonly stderr: Buffer[] = [];
  private pieces: Buffer[] = [];
  private nextId = 1;
  private waiters = new Map<string, (r: AgentResponse) => void>();
  private streams = new Map<string, (ev: Json) => void>();
  private helloResolve!: (v: Json) => void;
  /** Lines with no waiter (e.g. answers to raw requests), in arrival order. */
  readonly unclaimed: Json[] = [];

  constructor(base: string, env?: NodeJS.ProcessEnv) {
    this.proc = spawn(PY, [AGENT, '--base', base, 'serve'], {
      env: env ?? agentEnv(),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.hello = new Promise((r) => (this.helloResolve = r));
    this.exited = new Promise((r) => this.proc.on('exit', (code) => r(code)));
    this.proc.stdout!.on('data', (b: Buffer) => this.onData(b));
    this.proc.stderr!.on('data', (b: Buffer) => this.stderr.push(b));
  }

  /** A log event whose raw bytes are still arriving (they follow its header line). */
  private rawEvent: { msg: Json; left: number; parts: Buffer[] } | undefined;

  private onData(b: Buffer): void {
    // Lines can be megabytes (a full queue): gather pieces, join once per line. A log header
    // line is followed by `bytes` raw bytes, which are data, not lines.
    let rest = b;
    while (rest.length) {
      if (this.rawEvent) {
        const take = Math.min(this.rawEvent.left, rest.length);
        this.rawEvent.parts.push(rest.subarray(0, take));
        this.rawEvent.left -= take;
        rest = rest.subarray(take);
        if (!this.rawEvent.left) this.endRaw();
        continue;
      }
      const nl = rest.indexOf(10);
      if (nl < 0) {
        this.pieces.push(rest);
        return;
      }
      this.pieces.push(rest.subarray(0, nl));
      const line = Buffer.concat(this.pieces).toString('utf8');
      this.pieces = [];
      rest = rest.subarray(nl + 1);
      if (!line.trim()) continue;
      const msg = JSON.parse(line);
      if (msg.event === 'log') {
        this.rawEvent = { msg, left: msg.bytes, parts: [] };
        if (!msg.bytes) this.endRaw();
      } else this.onMessage(msg);
    }
  }

  private endRaw(): void {
    const { msg, parts } = this.rawEvent!;
    this.rawEvent = undefined;
    this.onMessage({ ...msg, data: Buffer.concat(parts) });
  }

  private onMessage(msg: Json): void {
    if (msg.event === 'hello') return this.helloResolve(msg);
    const key = JSON.stringify(msg.id);
    if (msg.event !== undefined) {
      const s = this.streams.get(key);
      if (s) return s(msg);
    } else {
      const w = this.waiters.get(key);
      if (w) {
        this.waiters.delete(key);
        return w(msg);
      }
    }
    this.unclaimed.push(msg);
  }

  /** Send a request; resolves with the whole response (ok or not). */
  request(cmd: string, args?: Json, id?: Json): Promise<AgentResponse> {
    const rid = id ?? `r${this.nextId++}`;
    const p = new Promise<AgentResponse>((resolve) => this.waiters.set(JSON.stringify(rid), resolve));
    this.proc.stdin!.write(JSON.stringify({ id: rid, cmd, args }) + '\n');
    return p;
  }

  async call(cmd: string, args?: Json): Promise<Json> {
    const r = await this.request(cmd, args);
    if (!r.ok) throw new Error(`${cmd} failed: ${JSON.stringify(r.error)}`);
    return r.result;
  }

  sendRaw(line: string): void {
    this.proc.stdin!.write(line);
  }

  /** A `logs` request; collects the raw chunks and resolves at the final response. */
  logs(args: Json, id?: Json, onChunk?: (c: Buffer) => void): Promise<LogStream> {
    const rid = id ?? `l${this.nextId++}`;
    const key = JSON.stringify(rid);
    const parts: Buffer[] = [];
    const chunks: { offset: number; length: number }[] = [];
    this.streams.set(key, (ev) => {
      const data = ev.data as Buffer;
      parts.push(data);
      chunks.push({ offset: ev.offset, length: data.length });
      onChunk?.(data);
    });
    const p = new Promise<LogStream>((resolve) =>
      this.waiters.set(key, (final) => {
        this.streams.delete(key);
        resolve({ data: Buffer.concat(parts), chunks, final });
      }),
    );
    this.proc.stdin!.write(JSON.stringify({ id: rid, cmd: 'logs', args }) + '\n');
    return p;
  }

  /** Close stdin (the agent must exit by itself) and wait for the exit code. */
  async close(timeoutMs = 5000): Promise<number | null> {
    this.proc.stdin!.end();
    return withTimeout(this.exited, timeoutMs, 'serve did not exit after stdin closed');
  }

  kill(): void {
    if (this.proc.exitCode === null && this.proc.signalCode === null) this.proc.kill('SIGKILL');
  }
}

export async function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      p,
      new Promise<T>((_, reject) => (timer = setTimeout(() => reject(new Error(`timeout: ${what}`)), ms))),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Poll until fn returns a truthy value; throws with `what` after timeoutMs. */
export async function waitUntil<T>(
  fn: () => T | Promise<T>,
  timeoutMs: number,
  what: string,
  intervalMs = 25,
): Promise<NonNullable<T>> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v as NonNullable<T>;
    if (Date.now() > end) throw new Error(`timeout after ${timeoutMs} ms: ${what}`);
    await sleep(intervalMs);
  }
}

// ---- process-tree inspection (Linux /proc) ----

export interface ProcStat {
  pid: number;
  comm: string;
  state: string;
  ppid: number;
  pgid: number;
  sid: number;
  start: number;
}

export function procStat(pid: number): ProcStat | null {
  let s: string;
  try {
    s = fs.readFileSync(`/proc/${pid}/stat`, 'latin1');
  } catch {
    return null;
  }
  const close = s.lastIndexOf(')');
  const rest = s.slice(close + 2).split(' ');
  return {
    pid,
    comm: s.slice(s.indexOf('(') + 1, close),
    state: rest[0],
    ppid: Number(rest[1]),
    pgid: Number(rest[2]),
    sid: Number(rest[3]),
    start: Number(rest[19]),
  };
}

/** Running and not a zombie (PID 1 here reaps slowly; an exited process counts as gone). */
export function isAlive(pid: number): boolean {
  const st = procStat(pid);
  return st !== null && st.state !== 'Z' && st.state !== 'X';
}

export function markerPrefix(base: string): string {
  return crypto.createHash('sha256').update(fs.realpathSync(base)).digest('hex').slice(0, 16);
}

function allPids(): number[] {
  return fs
    .readdirSync('/proc')
    .filter((n) => /^\d+$/.test(n))
    .map(Number)
    .filter((p) => p !== process.pid);
}

export interface MarkedProc extends ProcStat {
  jobId: number;
}

/** Live processes carrying this base dir's job marker, optionally of one job only. */
export function markedProcs(base: string, jobId?: number): MarkedProc[] {
  const needle = Buffer.from(`\0SKYDECK_JOB_MARKER=${markerPrefix(base)}:`);
  const out: MarkedProc[] = [];
  for (const pid of allPids()) {
    let env: Buffer;
    try {
      env = Buffer.concat([Buffer.from([0]), fs.readFileSync(`/proc/${pid}/environ`)]);
    } catch {
      continue;
    }
    const i = env.indexOf(needle);
    if (i < 0) continue;
    let j = env.indexOf(0, i + needle.length);
    if (j < 0) j = env.length;
    const id = Number(env.subarray(i + needle.length, j).toString());
    if (jobId !== undefined && id !== jobId) continue;
    const st = procStat(pid);
    if (st && st.state !== 'Z' && st.state !== 'X') out.push({ ...st, jobId: id });
  }
  return out;
}

/** Live processes whose command line mentions the base dir (daemon, serve, reporters). */
export function baseProcs(base: string): number[] {
  const real = fs.existsSync(base) ? fs.realpathSync(base) : base;
  const out: number[] = [];
  for (const pid of allPids()) {
    try {
      const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      // Or working below it: a job of a node the fake cloud took away (preempted) runs on, as
      // its cmdline ("sleep 600") does not name the base.
      let cwd = '';
      try {
        cwd = fs.readlinkSync(`/proc/${pid}/cwd`);
      } catch {
        /* another user's, or gone */
      }
      const under = (p: string) => cwd === p || cwd.startsWith(`${p}/`);
      if ((cmd.includes(real) || cmd.includes(base) || under(real) || under(base)) && isAlive(pid)) out.push(pid);
    } catch {
      /* gone */
    }
  }
  return out;
}

/** Pid of the process an orphan is re-parented to here (1, or a subreaper). */
let orphanParentCache: number | undefined;
export async function orphanParent(): Promise<number> {
  if (orphanParentCache !== undefined) return orphanParentCache;
  const script =
    'import os,sys,time\n' +
    'r,w=os.pipe()\n' +
    'if os.fork()==0:\n' +
    '  p=os.fork()\n' +
    '  if p==0:\n' +
    '    time.sleep(0.3); os._exit(0)\n' +
    '  os.write(w,str(p).encode()); os._exit(0)\n' +
    'os.close(w); p=int(os.read(r,64)); os.wait(); time.sleep(0.05)\n' +
    'print(open("/proc/%d/stat"%p).read().rsplit(")",1)[1].split()[1])\n';
  const res = await new Promise<string>((resolve, reject) => {
    const c = spawn(PY, ['-c', script]);
    let out = '';
    c.stdout.on('data', (b) => (out += b));
    c.on('error', reject);
    c.on('close', () => resolve(out.trim()));
  });
  orphanParentCache = Number(res);
  return orphanParentCache;
}

/** Where this base dir's job cgroups hang (under the test runner's own cgroups, as the agent's). */
export function cgroupRoots(base: string): string[] {
  const roots: string[] = [];
  let own: string[] = [];
  try {
    own = fs.readFileSync('/proc/self/cgroup', 'utf8').split('\n');
  } catch {
    return [];
  }
  for (const line of own) {
    const [, ctl, rel] = line.split(':');
    if (rel === undefined) continue;
    if (ctl === '') roots.push(path.join('/sys/fs/cgroup/unified', rel), path.join('/sys/fs/cgroup', rel));
    for (const c of ['freezer', 'pids']) if (ctl.split(',').includes(c)) roots.push(path.join('/sys/fs/cgroup', c, rel));
  }
  return roots.map((r) => path.join(r, `skydeck-${markerPrefix(base)}`));
}

/** The job cgroups of this base dir. */
export function jobCgroups(base: string): string[] {
  const out: string[] = [];
  for (const dir of cgroupRoots(base)) {
    let names: string[] = [];
    try {
      names = fs.readdirSync(dir).filter((n) => /^[0-9A-Za-z]+-\d+/.test(n));
    } catch {
      continue;
    }
    for (const n of names) out.push(path.join(dir, n));
  }
  return out;
}

/** Kill everything a test started under this base dir, then remove it. */
export async function cleanupBase(base: string): Promise<void> {
  // Drivers first, with their whole group: a waiter driver is outside its job's cgroup, and
  // one that saw its job killed would start a reporter writing into the base dir being removed.
  for (const p of markedProcs(base).filter((x) => x.pid === x.sid)) {
    try {
      process.kill(-p.pgid, 'SIGKILL');
    } catch {
      /* already gone */
    }
  }
  if (fs.existsSync(base)) {
    for (const cg of jobCgroups(base)) {
      try {
        for (const p of fs.readFileSync(path.join(cg, 'cgroup.procs'), 'utf8').split(/\s+/).filter(Boolean)) {
          try {
            process.kill(Number(p), 'SIGKILL');
          } catch {
            /* gone */
          }
        }
      } catch {
        /* gone */
      }
    }
  }
  for (let round = 0; round < 3; round++) {
    const marked = markedProcs(base);
    const others = baseProcs(base);
    if (!marked.length && !others.length) break;
    for (const p of marked) {
      try {
        process.kill(-p.pgid, 'SIGKILL');
      } catch {
        /* already gone */
      }
      try {
        process.kill(p.pid, 'SIGKILL');
      } catch {
        /* already gone */
      }
    }
    for (const pid of others) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        /* already gone */
      }
    }
    await sleep(50);
  }
  if (fs.existsSync(base)) {
    const dirs = jobCgroups(base);
    for (let i = 0; i < 40 && dirs.some((d) => fs.existsSync(d)); i++) {
      for (const d of dirs) {
        try {
          fs.rmdirSync(d);
        } catch {
          /* busy for a moment, or gone */
        }
      }
      if (dirs.some((d) => fs.existsSync(d))) await sleep(25);
    }
    for (const d of cgroupRoots(base)) {
      try {
        fs.rmdirSync(d);
      } catch {
        /* another job of this base dir, or gone */
      }
    }
  }
  fs.rmSync(base, { recursive: true, force: true });
}

/** Per-test base dir and the serve clients opened in it; call setup/cleanup from hooks. */
export class AgentFixture {
  base = '';
  private clients: ServeClient[] = [];

  setup(): void {
    this.base = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-agent-'));
    this.clients = [];
  }

  serve(env?: NodeJS.ProcessEnv): ServeClient {
    const c = new ServeClient(this.base, env);
    this.clients.push(c);
    return c;
  }

  cli(args: string[], input?: Json, env?: NodeJS.ProcessEnv): Promise<Json> {
    return cli(this.base, args, input, env);
  }

  run(args: string[], opts?: { input?: string | Buffer; env?: NodeJS.ProcessEnv }): Promise<CliResult> {
    return runAgent(this.base, args, opts);
  }

  async cleanup(): Promise<void> {
    for (const c of this.clients) c.kill();
    if (this.base) await cleanupBase(this.base);
  }
}

/** Queue rows (column arrays) as objects keyed by job id. */
export function rowsById(queue: Json): Map<number, Json> {
  const cols: string[] = queue.columns;
  const out = new Map<number, Json>();
  for (const r of queue.rows as Json[][]) {
    const o: Json = {};
    cols.forEach((c, i) => (o[c] = r[i]));
    out.set(o.job_id, o);
  }
  return out;
}

/** One job's queue row as an object. */
export async function jobRow(c: ServeClient, id: number): Promise<Json> {
  return rowsById(await c.call('queue', { job_ids: [id] })).get(id);
}

/** Wait until the job reaches `status` (or one of several); returns its row. */
export async function waitStatus(
  c: ServeClient,
  id: number,
  status: string | string[],
  timeoutMs = 10000,
): Promise<Json> {
  const want = Array.isArray(status) ? status : [status];
  let last: Json;
  try {
    return await waitUntil(
      async () => {
        last = await jobRow(c, id);
        return want.includes(last?.status) ? last : null;
      },
      timeoutMs,
      `job ${id} -> ${want.join('|')}`,
    );
  } catch (e) {
    throw new Error(`${(e as Error).message}; last row: ${JSON.stringify(last)}`);
  }
}

/** A logical dump of jobs.db (schema + rows), to prove a failed request changed nothing. */
export async function dumpDb(base: string): Promise<string> {
  const script =
    'import sqlite3,sys\n' +
    'c=sqlite3.connect(sys.argv[1])\n' +
    'print(c.execute("PRAGMA user_version").fetchone()[0])\n' +
    'print("\\n".join(c.iterdump()))\n';
  return new Promise((resolve, reject) => {
    const child = spawn(PY, ['-c', script, path.join(base, 'jobs.db')]);
    let out = '';
    let err = '';
    child.stdout.on('data', (b) => (out += b));
    child.stderr.on('data', (b) => (err += b));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(err))));
  });
}

/** Run a short Python snippet (fixtures that need sqlite or fork); returns its stdout. */
export function python(script: string, args: string[] = [], env?: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(PY, ['-c', script, ...args], { env: env ?? process.env });
    let out = '';
    let err = '';
    child.stdout.on('data', (b) => (out += b));
    child.stderr.on('data', (b) => (err += b));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`python failed: ${err}`))));
  });
}

/**
 * Runs one of the agent's Python unittest files (test_*.py beside these tests) and fails on
 * any failure, error or skip, or when fewer than `minimum` tests ran.
 */
export function assertPythonTests(file: string, minimum: number, what: string): void {
  const r = spawnSync(PY, ['-B', '-m', 'unittest', 'discover', '-v', '-s', __dirname, '-p', file], {
    cwd: path.resolve(__dirname, '../../..'),
    encoding: 'utf8',
  });
  const out = `${r.stdout}${r.stderr}`;
  assert.equal(r.status, 0, out);
  const ran = /Ran (\d+) tests?/.exec(out);
  assert.ok(ran && Number(ran[1]) >= minimum, `expected ${what} to run:\n${out}`);
  assert.doesNotMatch(out, /skipped|expected failure/i, out);
}
