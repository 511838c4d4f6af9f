// Transport over the Kubernetes exec API: the agent's JSON-lines channel, syncs and one-off
// commands reach the head pod through the API server (WebSocket), no SSH in the pod.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { PassThrough, Readable, Writable } from 'node:stream';
import * as k8s from '@kubernetes/client-node';
import type { Channel, ExecOptions, ExecResult, Transport } from '../../transport/types';
import { AbortedError } from '../../transport/errors';
import type { KubeApi } from './api';
import { exitCode, PID_MARK, wrapCommand } from './execWrap';
import { describeExecFailure } from './execFailure';

export interface PodTarget {
  context: string;
  namespace: string;
  pod: string;
  container: string;
}

interface Running {
  ws: { close(): void };
  stdin: PassThrough;
  pid: Promise<number | undefined>;
  exit: Promise<number | null>;
}

export class KubeExecTransport implements Transport {
  readonly description: string;
  readonly installInOneExec = true;

  constructor(private readonly api: KubeApi, readonly target: PodTarget) {
    this.description = `kubernetes ${target.context}/${target.namespace}/${target.pod}`;
  }

  async exec(argv: string[], opts: ExecOptions = {}): Promise<ExecResult> {
    const input = opts.stdin === undefined ? undefined : await spool(opts.stdin);
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    const r = await this.start(argv, { cwd: opts.cwd, env: opts.env, stdinBytes: input?.size }, (b) => {
      out.push(b);
      opts.onStdout?.(b);
    }, (b) => {
      err.push(b);
      opts.onStderr?.(b);
    });
    const abort = () => void this.signal(r, 'TERM');
    opts.signal?.addEventListener('abort', abort, { once: true });
    try {
      if (input) await input.pipeInto(r.stdin);
      const code = await r.exit;
      if (opts.signal?.aborted) throw new AbortedError(`${argv[0]} on ${this.description} was cancelled`);
      return { code, stdout: Buffer.concat(out), stderr: Buffer.concat(err) };
    } finally {
      opts.signal?.removeEventListener('abort', abort);
      input?.dispose();
      r.ws.close();
    }
  }

  execShell(script: string, opts?: ExecOptions): Promise<ExecResult> {
    return this.exec(['/bin/sh', '-c', script], opts);
  }

  async openChannel(argv: string[], opts: Omit<ExecOptions, 'stdin' | 'onStdout' | 'onStderr'> = {}): Promise<Channel> {
    const data: ((b: Buffer) => void)[] = [];
    const errs: ((b: Buffer) => void)[] = [];
    const early: Buffer[] = [];
    const earlyErr: Buffer[] = [];
    const r = await this.start(argv, { cwd: opts.cwd, env: opts.env, stdinBytes: 'all' }, (b) => (data.length ? data.forEach((f) => f(b)) : early.push(b)), (b) => (errs.length ? errs.forEach((f) => f(b)) : earlyErr.push(b)));
    const closers: ((c: number | null) => void)[] = [];
    let closed: { code: number | null } | undefined;
    void r.exit.then((code) => {
      closed = { code };
      for (const f of closers) f(code);
    });
    return {
      write: (b) => void r.stdin.write(b),
      end: () => r.ws.close(),
      onData: (cb) => {
        data.push(cb);
        early.splice(0).forEach(cb);
      },
      onStderr: (cb) => {
        errs.push(cb);
        earlyErr.splice(0).forEach(cb);
      },
      onClose: (cb) => (closed ? cb(closed.code) : closers.push(cb)),
      close: () => {
        void this.signal(r, 'TERM').finally(() => r.ws.close());
      },
    };
  }

  async upload(localPath: string, remotePath: string): Promise<void> {
    const st = await fs.promises.stat(localPath);
    if (st.isDirectory()) {
      for (const e of await fs.promises.readdir(localPath)) await this.upload(path.join(localPath, e), path.posix.join(remotePath, e));
      return;
    }
    const script = 'set -e; d=$(dirname -- "$1"); mkdir -p -- "$d"; t="$1.skydeck-up.$$"; cat >"$t"; chmod "$2" "$t"; mv -f -- "$t" "$1"';
    const dest = remotePath.startsWith('~/') ? `$HOME/${remotePath.slice(2)}` : remotePath;
    const r = await this.exec(['/bin/sh', '-c', remotePath.startsWith('~/') ? `set -- "$HOME/\${1#??}" "$2"; ${script}` : script, 'sh', remotePath.startsWith('~/') ? remotePath : dest, (st.mode & 0o777).toString(8)], { stdin: fs.createReadStream(localPath) });
    if (r.code !== 0) throw new Error(`uploading ${localPath} to ${this.description} failed: ${r.stderr.toString().trim()}`);
  }

  async close(): Promise<void> {
    // Each exec has its own stream; nothing is held between calls.
  }

  private async start(argv: string[], o: { cwd?: string; env?: Record<string, string>; stdinBytes?: number | 'all' }, onOut: (b: Buffer) => void, onErr: (b: Buffer) => void): Promise<Running> {
    const { kc } = this.api.clients(this.target.context);
    const stdin = new PassThrough();
    let pidSeen: (p: number | undefined) => void = () => {};
    const pid = new Promise<number | undefined>((r) => (pidSeen = r));
    let head = Buffer.alloc(0);
    let marked = false;
    const stderr = new Writable({
      write(c: Buffer, _e, cb) {
        if (marked) onErr(c);
        else {
          head = Buffer.concat([head, c]);
          const nl = head.indexOf(10);
          if (nl >= 0 || head.length > 256) {
            marked = true;
            const line = head.subarray(0, nl >= 0 ? nl : 0).toString();
            pidSeen(line.startsWith(PID_MARK) ? Number(line.slice(PID_MARK.length)) : undefined);
            const rest = head.subarray(nl >= 0 ? nl + 1 : 0);
            if (rest.length) onErr(rest);
          }
        }
        cb();
      },
    });
    const stdout = new Writable({ write(c: Buffer, _e, cb) { onOut(c); cb(); } });
    let ended: (c: number | null) => void = () => {};
    const exit = new Promise<number | null>((r) => (ended = r));
    // The API server sends the exit status after the last output, on the same stream, and
    // keeps the stream open while stdin is attached: the status is the end.
    const ws = await new k8s.Exec(kc).exec(this.target.namespace, this.target.pod, this.target.container, wrapCommand(argv, o), stdout, stderr, o.stdinBytes === undefined ? null : stdin, false, (s) => {
      ended(exitCode(s));
    }).catch(async (e: unknown) => {
      throw new Error(await describeExecFailure(this.api, this.target, (e as Error).message ?? String(e)));
    });
    (ws as unknown as NodeJS.EventEmitter).on('close', () => {
      pidSeen(undefined);
      ended(null);
    });
    return { ws, stdin, pid, exit };
  }

  private async signal(r: Running, sig: 'TERM' | 'KILL'): Promise<void> {
    const pid = await Promise.race([r.pid, new Promise<undefined>((res) => setTimeout(() => res(undefined), 2_000))]);
    if (!pid) return;
    await this.exec(['kill', `-${sig}`, String(pid)]).catch(() => undefined);
  }
}

interface Spooled {
  size: number;
  pipeInto(w: PassThrough): Promise<void>;
  dispose(): void;
}

/** Input with a known length: buffers as they are, streams through a private temp file. */
async function spool(input: Buffer | string | NodeJS.ReadableStream): Promise<Spooled> {
  if (typeof input === 'string' || Buffer.isBuffer(input)) {
    const b = Buffer.from(input);
    return { size: b.length, pipeInto: async (w) => void w.write(b), dispose: () => undefined };
  }
  const dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'skydeck-kexec-'));
  const file = path.join(dir, 'stdin');
  await new Promise<void>((res, rej) => {
    const out = fs.createWriteStream(file, { mode: 0o600 });
    (input as Readable).on('error', rej).pipe(out).on('finish', () => res()).on('error', rej);
  });
  const size = (await fs.promises.stat(file)).size;
  return {
    size,
    pipeInto: (w) => new Promise<void>((res, rej) => {
      const rs = fs.createReadStream(file);
      rs.on('error', rej).on('end', () => res());
      rs.pipe(w, { end: false });
    }),
    dispose: () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}
