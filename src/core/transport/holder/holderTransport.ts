// A Transport that runs commands through the connection holder (server.ts) when one is there,
// and through a direct SSH connection otherwise: the same results, errors and cancellation
// either way. No ssh2 is loaded on the holder path (it costs ~50–90 ms at start-up).
import * as os from 'node:os';
import * as path from 'node:path';
import { AbortedError, ConnectionLostError } from '../errors';
import { expandHome } from '../homePath';
import { buildExecCommand, buildShellCommand } from '../shellQuote';
import { feedStdin } from '../stdio';
import { StreamChannel } from '../streamChannel';
import type { Channel, ExecOptions, ExecResult, SshTransportOptions, Transport } from '../types';
import { openSession, type HolderSession } from './clientSession';
import { payload, type HolderTarget } from './protocol';
import { checkedSocketPath } from './socketDir';

export interface HolderUse {
  dir: string;
  /** Starts a holder in the background (called when none answers); must not wait for it. */
  start?(): void;
  log?(m: string): void;
}

export class HolderTransport implements Transport {
  readonly description: string;
  private readonly target: HolderTarget;
  private readonly display: string;
  private direct: Transport | undefined;
  /** Set once the holder could not be used: later calls of this process go direct. */
  private holderOff = false;

  constructor(options: SshTransportOptions, private readonly use: HolderUse, private readonly makeDirect: () => Transport) {
    const port = options.port ?? 22;
    const sshDir = expandHome(options.sshDir ?? path.join(os.homedir(), '.ssh'));
    this.target = {
      host: options.host, port, user: options.user,
      ...(options.keyFile ? { keyFile: expandHome(options.keyFile) } : {}),
      agent: options.agent ?? (process.env.SSH_AUTH_SOCK || false),
      ...(options.useDefaultKeys !== undefined ? { useDefaultKeys: options.useDefaultKeys } : {}),
      sshDir,
      knownHostsFiles: [
        ...(options.userKnownHostsFiles ?? [path.join(sshDir, 'known_hosts')]).map(expandHome),
        ...(options.knownHostsFile ? [expandHome(options.knownHostsFile)] : []),
      ],
    };
    this.display = port === 22 ? options.host : `${options.host}:${port}`;
    this.description = `ssh ${options.user}@${options.host}:${port}`;
  }

  exec(argv: string[], opts: ExecOptions = {}): Promise<ExecResult> {
    return this.run(buildExecCommand(argv, opts), opts, (d) => d.exec(argv, opts));
  }

  execShell(script: string, opts: ExecOptions = {}): Promise<ExecResult> {
    return this.run(buildShellCommand(script, opts), opts, (d) => d.execShell(script, opts));
  }

  async openChannel(argv: string[], opts: Omit<ExecOptions, 'stdin' | 'onStdout' | 'onStderr'> = {}): Promise<Channel> {
    const s = await this.attach(buildExecCommand(argv, opts), opts.signal);
    if (!s) return this.viaDirect().openChannel(argv, opts);
    const stdin = s.stdin();
    const channel = new StreamChannel({
      write: (b) => { stdin.write(b); },
      end: () => { stdin.end(); },
      // Closing the socket is the cancel: the holder sends SIGTERM and closes the channel.
      close: () => { s.sock.destroy(); },
    });
    let code: number | null = null;
    s.onFrame((f) => {
      if (f.t === 'out') channel.pushData(payload(f)!);
      else if (f.t === 'err') channel.pushStderr(payload(f)!);
      else if (f.t === 'exit') code = typeof f.code === 'number' ? f.code : null;
    });
    const onAbort = (): void => channel.close();
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    s.onEnd(() => { opts.signal?.removeEventListener('abort', onAbort); channel.finish(code); });
    // An abort while the session opened fired no listener: it is acted on now.
    if (opts.signal?.aborted) onAbort();
    return channel;
  }

  upload(localPath: string, remotePath: string): Promise<void> {
    return this.viaDirect().upload(localPath, remotePath);
  }

  async close(): Promise<void> {
    this.holderOff = true;
    await this.direct?.close();
  }

  private viaDirect(): Transport {
    return (this.direct ??= this.makeDirect());
  }

  /** A running command through the holder, or undefined when the direct path is to be used. */
  private async attach(command: string, signal?: AbortSignal): Promise<HolderSession | undefined> {
    if (this.holderOff) return undefined;
    if (signal?.aborted) throw new AbortedError(this.display);
    let sock: string;
    try {
      sock = checkedSocketPath(this.use.dir);
    } catch (e) {
      this.holderOff = true;
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') this.use.start?.();
      else this.use.log?.(`connection holder not used: ${(e as Error).message}`);
      return undefined;
    }
    const o = await openSession(sock, this.target, command, this.display);
    if ('error' in o) throw o.error;
    if ('fallback' in o) {
      this.holderOff = true;
      this.use.log?.(`connection holder not used for ${this.display}: ${o.fallback}`);
      // Nobody answered at all: a killed holder's socket; start a new one for the next run.
      if (/before the command started/.test(o.fallback)) this.use.start?.();
      return undefined;
    }
    return o.session;
  }

  private async run(command: string, opts: ExecOptions, direct: (d: Transport) => Promise<ExecResult>): Promise<ExecResult> {
    const s = await this.attach(command, opts.signal);
    if (!s) return direct(this.viaDirect());
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let exit: { code: number | null; signal?: string; lost?: boolean } | undefined;
    // Registered before onFrame: its replay of early output can run a callback that aborts.
    let aborted = false;
    const onAbort = (): void => { aborted = true; s.sock.destroy(); };
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    if (opts.signal?.aborted) onAbort();
    s.onFrame((f) => {
      if (f.t === 'out') { const b = payload(f)!; out.push(b); opts.onStdout?.(b); }
      else if (f.t === 'err') { const b = payload(f)!; err.push(b); opts.onStderr?.(b); }
      else if (f.t === 'exit') exit = { code: typeof f.code === 'number' ? f.code : null, ...(typeof f.signal === 'string' ? { signal: f.signal } : {}), lost: f.lost === true };
    });
    feedStdin(s.stdin(), opts.stdin);
    await new Promise<void>((resolve) => s.onEnd(() => resolve()));
    opts.signal?.removeEventListener('abort', onAbort);
    if (aborted) throw new AbortedError(this.display);
    if (!exit || exit.lost) {
      this.holderOff = !exit;
      throw new ConnectionLostError(this.display, exit ? 'while a command was running; it may or may not have completed'
        : 'the connection holder went away while a command was running; it may or may not have completed');
    }
    return { code: exit.code, ...(exit.signal ? { signal: exit.signal } : {}), stdout: Buffer.concat(out), stderr: Buffer.concat(err) };
  }
}
