// One SSH connection to one user@host:port, shared by every transport for it (see sshPool).
// It connects lazily, verifies the host key, authenticates, keeps alive, reconnects with backoff
// after a drop, and opens session channels through a limiter so sshd's MaxSessions is never hit.
import type { Duplex } from 'node:stream';
import { Client, type ConnectConfig } from 'ssh2';
import { ChannelLimiter, type Release } from './channelLimiter';
import {
  AuthError, ChannelError, ConnectionLostError, ConnectTimeoutError, TransportError,
  classifyConnectError, isTransient,
} from './errors';
import { displayHost, loadKnownHosts, preferredHostKeyAlgorithms, verifyHostKey, type HostKeyPolicy } from './hostKeys';
import { authHandler, loadAuthSources, type AuthSettings } from './sshAuth';

export interface ConnectionSettings {
  host: string;
  port: number;
  user: string;
  auth: AuthSettings;
  hostKeys: HostKeyPolicy;
  jump?: ConnectionSettings;
  connectTimeoutMs: number;
  keepaliveIntervalMs: number;
  keepaliveCountMax: number;
  maxChannels: number;
  reconnect: { retries: number; baseDelayMs: number; maxDelayMs: number };
  log: (message: string) => void;
}

/** Pool key: "user@host:port", plus " via <jump key>" when reached through a jump host. */
export function connectionKey(s: ConnectionSettings): string {
  const own = `${s.user}@${s.host.toLowerCase()}:${s.port}`;
  return s.jump ? `${own} via ${connectionKey(s.jump)}` : own;
}

export interface ConnectionOwner {
  acquire(settings: ConnectionSettings): SshConnection;
  release(conn: SshConnection): Promise<void>;
}

type OpenFn<T> = (client: Client, cb: (err: Error | undefined, value: T) => void) => void;

export class SshConnection {
  readonly key: string;
  /** "user@host:port" for messages. */
  readonly display: string;
  readonly limiter: ChannelLimiter;
  refs = 0;
  /** Session channels the server refused (MaxSessions) and we retried: diagnostics, tests. */
  refusals = 0;
  /** Session channels open right now (opened, not yet released). */
  private openChannels = 0;
  private client: Client | undefined;
  private connecting: Promise<Client> | undefined;
  private everConnected = false;
  private ended = false;
  private readonly lost = new WeakSet<Client>();
  /** The server's host key as verified on the last handshake (an OpenSSH public key blob). */
  verifiedHostKey: Buffer | undefined;
  private jump: SshConnection | undefined;

  constructor(readonly settings: ConnectionSettings, private readonly owner: ConnectionOwner) {
    this.key = connectionKey(settings);
    this.display = displayHost(settings.host, settings.port) + (settings.jump ? ` (via ${settings.jump.host}:${settings.jump.port})` : '');
    this.limiter = new ChannelLimiter(settings.maxChannels);
  }

  get isEnded(): boolean { return this.ended; }

  /** True once `client` has dropped: a channel that closed without an exit status lost its connection. */
  isLost(client: Client): boolean { return this.lost.has(client); }

  /** The connected client, connecting (or reconnecting) first when needed. */
  ready(): Promise<Client> {
    if (this.ended) return Promise.reject(new ConnectionLostError(this.display, 'the transport was closed'));
    if (this.client) return Promise.resolve(this.client);
    this.connecting ??= this.connectWithRetry().finally(() => { this.connecting = undefined; });
    return this.connecting;
  }

  /**
   * Opens a session channel (exec, sftp) under the limiter. A refusal from sshd's session limit
   * is retried (nothing has run yet), as is a connection that died before the channel opened.
   * The caller must call `release` when the channel has closed.
   */
  async openSession<T>(open: OpenFn<T>, signal?: AbortSignal): Promise<{ value: T; client: Client; release: Release }> {
    let limitRefusals = 0;
    let drops = 0;
    for (;;) {
      const release = await this.limiter.acquire(signal);
      let client: Client;
      try {
        client = await this.ready();
      } catch (e) {
        release();
        throw e;
      }
      try {
        const value = await new Promise<T>((resolve, reject) => {
          try {
            open(client, (err, v) => (err ? reject(err) : resolve(v)));
          } catch (e) {
            reject(e); // ssh2 throws "Not connected" synchronously
          }
        });
        this.limiter.opened();
        this.openChannels++;
        let released = false;
        const releaseOpen: Release = () => {
          if (released) return;
          released = true;
          this.openChannels--;
          release();
        };
        return { value, client, release: releaseOpen };
      } catch (e) {
        const err = e as Error & { reason?: number | string };
        if (err.reason === 2 || /open failed/i.test(err.message)) {
          // sshd's MaxSessions: run with fewer concurrent channels, wait, try again.
          this.limiter.shrink(this.openChannels);
          release();
          this.refusals++;
          if (++limitRefusals > 100) throw new ChannelError(this.display, `the server keeps refusing new sessions (${err.message}); check MaxSessions in its sshd_config`, e);
          this.settings.log(`${this.display}: server refused a session channel, now at most ${this.limiter.limit} at once`);
          // With channels of ours open, the queue waits for one to close; with none, back off.
          if (this.openChannels === 0) await sleep(Math.min(200, 5 * limitRefusals));
          continue;
        }
        release();
        if (this.isLost(client) || !this.client || this.client !== client) {
          if (++drops > 2) throw new ConnectionLostError(this.display, 'repeatedly, while opening a channel', e);
          continue;
        }
        throw new ChannelError(this.display, err.message, e);
      }
    }
  }

  /** Closes the connection for good (the pool calls this when the last user is gone). */
  async end(): Promise<void> {
    this.ended = true;
    const client = this.client ?? (await this.connecting?.catch(() => undefined));
    this.client = undefined;
    if (client && !this.isLost(client)) {
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, 2000);
        client.once('close', () => { clearTimeout(t); resolve(); });
        client.end();
      });
    }
    if (this.jump) {
      const j = this.jump;
      this.jump = undefined;
      await this.owner.release(j);
    }
  }

  private async connectWithRetry(): Promise<Client> {
    const { retries, baseDelayMs, maxDelayMs } = this.settings.reconnect;
    for (let attempt = 0; ; attempt++) {
      try {
        const client = await this.connectOnce();
        if (this.ended) {
          client.end();
          throw new ConnectionLostError(this.display, 'the transport was closed');
        }
        this.adopt(client);
        return client;
      } catch (e) {
        // A first connection fails fast (wrong settings are the usual cause); a connection that
        // worked before is retried, since the machine may be rebooting.
        if (!this.everConnected || !isTransient(e) || attempt >= retries || this.ended) throw e;
        const delay = Math.min(maxDelayMs, baseDelayMs * 2 ** attempt);
        this.settings.log(`${this.display}: reconnect failed (${(e as Error).message}); retrying in ${delay} ms`);
        await sleep(delay);
      }
    }
  }

  private adopt(client: Client): void {
    // Small request/response packets: without this, Nagle + delayed ACK add ~40 ms per command.
    client.setNoDelay(true);
    this.everConnected = true;
    this.client = client;
    this.limiter.reset();
    this.settings.log(`${this.display}: connected`);
    const onGone = (why: string) => () => {
      if (this.lost.has(client)) return;
      this.lost.add(client);
      if (this.client === client) this.client = undefined;
      if (!this.ended) this.settings.log(`${this.display}: connection lost (${why}); the next command reconnects`);
    };
    // 'close' is emitted before ssh2 closes the channels, so channels see isLost() already.
    client.on('close', onGone('closed'));
    client.on('end', onGone('ended by the server'));
    client.on('error', (e: Error) => this.settings.log(`${this.display}: ${e.message}`));
  }

  private async forwardThroughJump(): Promise<Duplex> {
    const s = this.settings;
    this.jump ??= this.owner.acquire(s.jump!);
    const jumpClient = await this.jump.ready();
    return new Promise<Duplex>((resolve, reject) => {
      try {
        jumpClient.forwardOut('127.0.0.1', 0, s.host, s.port, (err, stream) => {
          if (err) reject(classifyConnectError(this.display, err, s.connectTimeoutMs));
          else resolve(stream);
        });
      } catch (e) {
        reject(classifyConnectError(this.display, e, s.connectTimeoutMs));
      }
    });
  }

  private async connectOnce(): Promise<Client> {
    const s = this.settings;
    const tried: string[] = [];
    const notes: string[] = [];
    const sources = await loadAuthSources(this.display, s.auth, notes);
    const known = await loadKnownHosts([...s.hostKeys.userKnownHostsFiles, ...(s.hostKeys.knownHostsFile ? [s.hostKeys.knownHostsFile] : [])]);
    const preferred = preferredHostKeyAlgorithms(known, s.host, s.port);
    const sock = s.jump ? await this.forwardThroughJump() : undefined;

    return new Promise<Client>((resolve, reject) => {
      const client = new Client();
      let settled = false;
      let hostKeyError: TransportError | undefined;
      // Our own handshake timer instead of ssh2's readyTimeout: it stops while the user is asked
      // about an unknown host key, which may take longer than any sensible timeout.
      let remaining = s.connectTimeoutMs;
      let startedAt = 0;
      let timer: NodeJS.Timeout | undefined;
      let stage = 'TCP connect';
      const startTimer = (): void => {
        startedAt = Date.now();
        timer = setTimeout(() => fail(new ConnectTimeoutError(this.display, s.connectTimeoutMs, `no answer during ${stage}`)), remaining);
      };
      const pauseTimer = (): void => {
        clearTimeout(timer);
        remaining = Math.max(1, remaining - (Date.now() - startedAt));
      };
      const fail = (e: TransportError): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        client.removeAllListeners('ready');
        client.on('error', () => undefined);
        // destroy, not end: a peer that never answers would keep a half-closed socket open.
        client.destroy();
        sock?.destroy();
        reject(e);
      };
      client.once('ready', () => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(client);
      });
      client.on('error', (e: Error & { level?: string }) => {
        if (settled) return;
        if (hostKeyError) return fail(hostKeyError);
        if (e.level === 'client-authentication') {
          return fail(new AuthError(this.display, s.user, [...tried, ...notes]));
        }
        fail(classifyConnectError(this.display, e, s.connectTimeoutMs));
      });
      client.on('close', () => fail(hostKeyError ?? new ConnectionLostError(this.display, 'closed by the server during the handshake')));
      client.on('banner', () => { stage = 'authentication'; });

      const config: ConnectConfig = {
        host: s.host,
        port: s.port,
        username: s.user,
        sock,
        readyTimeout: 0,
        keepaliveInterval: s.keepaliveIntervalMs,
        keepaliveCountMax: s.keepaliveCountMax,
        authHandler: authHandler(s.user, sources, tried),
        hostVerifier: (key: Buffer, verify: (ok: boolean) => void) => {
          stage = 'host key check';
          pauseTimer();
          verifyHostKey(s.hostKeys, s.host, s.port, key).then(
            () => { this.verifiedHostKey = key; stage = 'authentication'; if (!settled) startTimer(); verify(true); },
            (e: unknown) => {
              hostKeyError = e instanceof TransportError ? e : classifyConnectError(this.display, e, s.connectTimeoutMs);
              verify(false);
            },
          );
        },
      };
      if (preferred.length) config.algorithms = { serverHostKey: { prepend: preferred } } as ConnectConfig['algorithms'];
      startTimer();
      stage = sock ? 'SSH handshake (via jump host)' : 'TCP connect and SSH handshake';
      try {
        client.connect(config);
      } catch (e) {
        fail(classifyConnectError(this.display, e, s.connectTimeoutMs));
      }
    });
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
