// Transport over SSH (npm ssh2), on a pooled connection shared per user@host:port.
import * as os from 'node:os';
import * as path from 'node:path';
import type { ClientChannel, SFTPWrapper } from 'ssh2';
import { AbortedError, ConnectionLostError, TransportConfigError } from './errors';
import { feedStdin, whenEnded } from './stdio';
import { buildExecCommand, buildShellCommand } from './shellQuote';
import { expandHome } from './homePath';
import { knownHostsLine } from './hostKeys';
import type { ConnectionSettings, SshConnection } from './sshConnection';
import { defaultSshPool, type SshPool } from './sshPool';
import { sftpUpload } from './sshUpload';
import { StreamChannel } from './streamChannel';
import { shellCommand, wrapShellStream } from './sshShell';
import type {
  Channel, ExecOptions, ExecResult, InteractiveShell, ShellOptions, SshEndpoint, SshTransportOptions, Transport,
} from './types';

export function resolveSettings(o: SshTransportOptions): ConnectionSettings {
  const sshDir = expandHome(o.sshDir ?? path.join(os.homedir(), '.ssh'));
  const common = {
    hostKeys: {
      userKnownHostsFiles: (o.userKnownHostsFiles ?? [path.join(sshDir, 'known_hosts')]).map(expandHome),
      knownHostsFile: o.knownHostsFile ? expandHome(o.knownHostsFile) : undefined,
      trustOnFirstUse: o.trustOnFirstUse ?? false,
      onUnknownHostKey: o.onUnknownHostKey,
    },
    connectTimeoutMs: o.connectTimeoutMs ?? 15_000,
    keepaliveIntervalMs: o.keepaliveIntervalMs ?? 15_000,
    keepaliveCountMax: o.keepaliveCountMax ?? 3,
    maxChannels: o.maxChannels ?? 8,
    reconnect: {
      retries: o.reconnect?.retries ?? 4,
      baseDelayMs: o.reconnect?.baseDelayMs ?? 250,
      maxDelayMs: o.reconnect?.maxDelayMs ?? 5000,
    },
    log: o.log ?? (() => undefined),
  };
  const endpoint = (e: SshEndpoint, inheritKey: boolean): Pick<ConnectionSettings, 'host' | 'port' | 'user' | 'auth'> => {
    if (!e.host) throw new TransportConfigError('(no host)', 'the host name is empty');
    if (!e.user) throw new TransportConfigError(e.host, 'the user name is empty');
    const keyFile = e.keyFile ?? (inheritKey ? o.keyFile : undefined);
    return {
      host: e.host,
      port: e.port ?? 22,
      user: e.user,
      auth: {
        keyFile,
        passphrase: e.keyFile ? e.passphrase : (inheritKey ? o.passphrase : undefined),
        agent: o.agent,
        useDefaultKeys: o.useDefaultKeys,
        sshDir,
      },
    };
  };
  const jump = o.jump ? { ...common, ...endpoint(o.jump, true) } : undefined;
  return { ...common, ...endpoint(o, false), jump };
}

export class SshTransport implements Transport {
  readonly description: string;
  private readonly conn: SshConnection;
  private closed = false;

  constructor(options: SshTransportOptions, private readonly pool: SshPool = defaultSshPool) {
    const settings = resolveSettings(options);
    this.conn = pool.acquire(settings);
    const j = settings.jump;
    this.description = `ssh ${settings.user}@${settings.host}:${settings.port}` + (j ? ` via ${j.user}@${j.host}:${j.port}` : '');
  }

  /** The pooled connection's key, "user@host:port[ via …]". */
  get connectionKey(): string { return this.conn.key; }

  async exec(argv: string[], opts: ExecOptions = {}): Promise<ExecResult> {
    return this.run(buildExecCommand(argv, opts), opts);
  }

  async execShell(script: string, opts: ExecOptions = {}): Promise<ExecResult> {
    return this.run(buildShellCommand(script, opts), opts);
  }

  private async open(command: string, signal?: AbortSignal): Promise<{ stream: ClientChannel; lost: () => boolean; release: () => void }> {
    this.assertOpen();
    if (signal?.aborted) throw new AbortedError(this.conn.display);
    const { value: stream, client, release } = await this.conn
      .openSession<ClientChannel>((c, cb) => c.exec(command, (err, stream) => {
        // ssh2 may deliver the exec reply, the output and the exit status in one read, emitting
        // 'exit' before our awaiting code runs: record it now. (Output is buffered by the stream.)
        if (!err) trackExit(stream);
        cb(err, stream);
      }), signal)
      .catch((e: unknown) => { throw signal?.aborted ? new AbortedError(this.conn.display) : e; });
    return { stream, lost: () => this.conn.isLost(client), release };
  }

  private async run(command: string, opts: ExecOptions): Promise<ExecResult> {
    const { stream, lost, release } = await this.open(command, opts.signal);
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let aborted = false;
    stream.on('data', (b: Buffer) => { out.push(b); opts.onStdout?.(b); });
    stream.stderr.on('data', (b: Buffer) => { err.push(b); opts.onStderr?.(b); });
    let onAborted: () => void = () => undefined;
    const abortedP = new Promise<void>((r) => { onAborted = r; });
    const onAbort = (): void => {
      aborted = true;
      signalRemote(stream, 'TERM');
      stream.close();
      onAborted();
    };
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    const closed = new Promise<void>((resolve) => stream.once('close', () => resolve()));
    // The slot is released only when the server has closed the channel (its session is gone).
    const finished = Promise.all([closed, whenEnded(stream.stderr)]).then(() => {
      release();
      opts.signal?.removeEventListener('abort', onAbort);
    });
    feedStdin(stream, opts.stdin);
    if (opts.signal?.aborted) onAbort(); // aborted while the channel was opening
    // sshd keeps a channel open until its command exits: a command that ignores SIGTERM must not
    // hold up the caller, so an abort returns after a short grace period.
    await Promise.race([finished, abortedP.then(() => sleep(2000))]);
    if (aborted) throw new AbortedError(this.conn.display);
    const exit = exits.get(stream);
    if (!exit && lost()) {
      throw new ConnectionLostError(this.conn.display, 'while a command was running; it may or may not have completed');
    }
    return {
      code: exit?.code ?? null,
      ...(exit?.signal ? { signal: exit.signal } : {}),
      stdout: Buffer.concat(out),
      stderr: Buffer.concat(err),
    };
  }

  async openChannel(argv: string[], opts: Omit<ExecOptions, 'stdin' | 'onStdout' | 'onStderr'> = {}): Promise<Channel> {
    const { stream, release } = await this.open(buildExecCommand(argv, opts), opts.signal);
    const channel = new StreamChannel({
      write: (b) => { stream.write(b); },
      end: () => { stream.end(); },
      close: () => {
        signalRemote(stream, 'TERM');
        stream.close();
      },
    });
    stream.on('data', (b: Buffer) => channel.pushData(b));
    stream.stderr.on('data', (b: Buffer) => channel.pushStderr(b));
    stream.on('error', () => undefined); // writes after the peer closed; close reports the end
    const onAbort = (): void => channel.close();
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    if (opts.signal?.aborted) onAbort();
    stream.once('close', () => {
      void whenEnded(stream.stderr).then(() => {
        release();
        opts.signal?.removeEventListener('abort', onAbort);
        channel.finish(exits.get(stream)?.code ?? null);
      });
    });
    return channel;
  }

  /**
   * The host key this connection verified, as a known_hosts line ("[host]:port type base64"),
   * e.g. to pin a worker's key on the head of a multi-node cluster.
   */
  async knownHostsLine(): Promise<string> {
    if (!this.conn.verifiedHostKey) await this.exec(['true']);
    const key = this.conn.verifiedHostKey;
    if (!key) throw new ConnectionLostError(this.conn.display, 'no host key was verified');
    const s = this.conn.settings;
    return knownHostsLine(s.host, s.port, key);
  }

  /** A login shell on a pty (xterm-256color), for Open SSH Terminal. */
  async openShell(opts: ShellOptions): Promise<InteractiveShell> {
    this.assertOpen();
    const pty = { term: 'xterm-256color', cols: opts.cols, rows: opts.rows };
    const { value: stream, release } = await this.conn.openSession<ClientChannel>((c, cb) =>
      c.exec(shellCommand(opts.cwd, opts.container), { pty }, cb));
    return wrapShellStream(stream, opts, release);
  }

  async upload(localPath: string, remotePath: string): Promise<void> {
    this.assertOpen();
    const { value: sftp, release } = await this.conn.openSession<SFTPWrapper>((c, cb) => c.sftp(cb));
    const closed = new Promise<void>((resolve) => sftp.once('close', () => resolve()));
    try {
      await sftpUpload(sftp, localPath, remotePath);
    } finally {
      sftp.end();
      // The slot is free once the server has closed the session, not when we ask it to.
      await Promise.race([closed, new Promise((r) => setTimeout(r, 2000).unref())]);
      release();
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.pool.release(this.conn);
  }

  private assertOpen(): void {
    if (this.closed) throw new ConnectionLostError(this.conn.display, 'this transport was closed');
  }
}

interface ExitInfo { code: number | null; signal?: string; }
const exits = new WeakMap<ClientChannel, ExitInfo>();

function trackExit(stream: ClientChannel): void {
  stream.once('exit', (c: number | null, sig?: string) => {
    exits.set(stream, typeof c === 'number' ? { code: c } : { code: null, signal: sig ? sig.replace(/^SIG/, '') : undefined });
  });
}

/**
 * Sends a "signal" channel request. ssh2's ClientChannel.signal() sends nothing once stdin has
 * been ended, which is almost always the case here, so this goes to its protocol object when the
 * channel is still open for output; sshd (OpenSSH >= 7.9) delivers it to the command.
 */
export function signalRemote(stream: ClientChannel, name: string): void {
  const ch = stream as unknown as {
    outgoing?: { id?: number; state?: string };
    _client?: { _protocol?: { signal?(id: number, name: string): void } };
  };
  try {
    const state = ch.outgoing?.state;
    const proto = ch._client?._protocol;
    if ((state === 'open' || state === 'eof') && ch.outgoing?.id !== undefined && proto?.signal) {
      proto.signal(ch.outgoing.id, name);
    } else {
      stream.signal(name);
    }
  } catch {
    // the channel is closing anyway
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms).unref());
}

export function createSshTransport(options: SshTransportOptions, pool?: SshPool): SshTransport {
  return new SshTransport(options, pool);
}
