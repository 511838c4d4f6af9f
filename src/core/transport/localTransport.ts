// Transport on this machine: child processes spawned from argv (no shell), except execShell,
// which is /bin/sh -c. Results look like the SSH transport's: a missing program is exit 127
// with a message on stderr, as a remote shell would report it.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { AbortedError } from './errors';
import { assertEnvNames } from './shellQuote';
import { expandHome } from './homePath';
import { feedStdin, whenEnded } from './stdio';
import { StreamChannel } from './streamChannel';
import type { Channel, ExecOptions, ExecResult, Transport } from './types';

const HOST = 'this machine';
const POSIX = process.platform !== 'win32';

interface Started {
  child: ChildProcess | undefined;
  /** Set when the program could not be started: the shell-like result to report. */
  failed?: { code: number; message: string };
}

async function start(argv: string[], opts: ExecOptions, base: NodeJS.ProcessEnv): Promise<Started> {
  if (argv.length === 0) throw new Error('exec: empty argv');
  if (opts.env) assertEnvNames(opts.env);
  const cwd = opts.cwd ? expandHome(opts.cwd) : undefined;
  if (cwd) {
    const st = await fsp.stat(cwd).catch(() => undefined);
    if (!st?.isDirectory()) return { child: undefined, failed: { code: 2, message: `cd: ${opts.cwd}: No such file or directory\n` } };
  }
  return new Promise<Started>((resolve) => {
    const child = spawn(argv[0], argv.slice(1), {
      cwd,
      env: { ...base, ...(opts.env ?? {}) },
      stdio: ['pipe', 'pipe', 'pipe'],
      // Own process group, so cancelling reaches the command's children too.
      detached: POSIX,
    });
    child.once('spawn', () => resolve({ child }));
    child.once('error', (e: NodeJS.ErrnoException) => {
      const code = e.code === 'ENOENT' ? 127 : 126;
      const why = e.code === 'ENOENT' ? 'command not found' : `cannot execute (${e.code ?? e.message})`;
      resolve({ child: undefined, failed: { code, message: `${argv[0]}: ${why}\n` } });
    });
  });
}

function kill(child: ChildProcess): void {
  const pid = child.pid;
  if (pid === undefined) return;
  const signal = (sig: NodeJS.Signals): void => {
    try {
      if (POSIX) process.kill(-pid, sig);
      else child.kill(sig);
    } catch { /* already gone */ }
  };
  signal('SIGTERM');
  setTimeout(() => { if (child.exitCode === null && child.signalCode === null) signal('SIGKILL'); }, 5000).unref();
}

export interface LocalTransportOptions {
  /** The environment commands start from (default: this process's). */
  env?: NodeJS.ProcessEnv;
}

export class LocalTransport implements Transport {
  readonly description = 'local';

  constructor(private readonly opts: LocalTransportOptions = {}) {}

  exec(argv: string[], opts: ExecOptions = {}): Promise<ExecResult> {
    return this.run(argv, opts);
  }

  execShell(script: string, opts: ExecOptions = {}): Promise<ExecResult> {
    return this.run(['/bin/sh', '-c', script], opts);
  }

  private async run(argv: string[], opts: ExecOptions): Promise<ExecResult> {
    if (opts.signal?.aborted) throw new AbortedError(HOST);
    const { child, failed } = await start(argv, opts, this.opts.env ?? process.env);
    if (!child) {
      const stderr = Buffer.from(failed!.message);
      opts.onStderr?.(stderr);
      return { code: failed!.code, stdout: Buffer.alloc(0), stderr };
    }
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let aborted = false;
    child.stdout!.on('data', (b: Buffer) => { out.push(b); opts.onStdout?.(b); });
    child.stderr!.on('data', (b: Buffer) => { err.push(b); opts.onStderr?.(b); });
    const onAbort = (): void => { aborted = true; kill(child); };
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    feedStdin(child.stdin!, opts.stdin);
    if (opts.signal?.aborted) onAbort();
    const [code, sig] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) => {
      child.once('close', (c, s) => resolve([c, s]));
    });
    opts.signal?.removeEventListener('abort', onAbort);
    if (aborted) throw new AbortedError(HOST);
    return {
      code,
      ...(sig ? { signal: sig.replace(/^SIG/, '') } : {}),
      stdout: Buffer.concat(out),
      stderr: Buffer.concat(err),
    };
  }

  async openChannel(argv: string[], opts: Omit<ExecOptions, 'stdin' | 'onStdout' | 'onStderr'> = {}): Promise<Channel> {
    if (opts.signal?.aborted) throw new AbortedError(HOST);
    const { child, failed } = await start(argv, opts, this.opts.env ?? process.env);
    if (!child) {
      const ch = new StreamChannel({ write: () => undefined, end: () => undefined, close: () => undefined });
      ch.pushStderr(Buffer.from(failed!.message));
      ch.finish(failed!.code);
      return ch;
    }
    const channel = new StreamChannel({
      write: (b) => { child.stdin!.write(b); },
      end: () => { child.stdin!.end(); },
      close: () => kill(child),
    });
    child.stdin!.on('error', () => undefined);
    child.stdout!.on('data', (b: Buffer) => channel.pushData(b));
    child.stderr!.on('data', (b: Buffer) => channel.pushStderr(b));
    const onAbort = (): void => kill(child);
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    if (opts.signal?.aborted) onAbort();
    child.once('close', (code) => {
      void whenEnded(child.stderr ?? undefined).then(() => {
        opts.signal?.removeEventListener('abort', onAbort);
        channel.finish(code);
      });
    });
    return channel;
  }

  async upload(localPath: string, remotePath: string): Promise<void> {
    const dest = expandHome(remotePath);
    const st = await fsp.stat(localPath);
    await fsp.mkdir(path.dirname(dest), { recursive: true });
    if (st.isDirectory()) {
      await fsp.cp(localPath, dest, { recursive: true, force: true, dereference: true });
      return;
    }
    const tmp = `${dest}.skydeck-${randomBytes(4).toString('hex')}.tmp`;
    try {
      await fsp.copyFile(localPath, tmp);
      await fsp.chmod(tmp, st.mode & 0o7777);
      await fsp.rename(tmp, dest);
    } catch (e) {
      await fsp.rm(tmp, { force: true });
      throw e;
    }
  }

  async close(): Promise<void> { /* nothing held */ }
}

export function createLocalTransport(opts: LocalTransportOptions = {}): LocalTransport {
  return new LocalTransport(opts);
}
