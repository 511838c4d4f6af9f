// Typed transport errors. Each message names the host and says what to check, because it is
// shown to users as is.

export type TransportErrorKind =
  | 'auth'
  | 'refused'
  | 'timeout'
  | 'unreachable'
  | 'host-key-changed'
  | 'host-key-rejected'
  | 'connection-lost'
  | 'channel'
  | 'aborted'
  | 'config';

export class TransportError extends Error {
  constructor(readonly kind: TransportErrorKind, readonly host: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

export class AuthError extends TransportError {
  constructor(host: string, user: string, tried: string[]) {
    const what = tried.length ? `tried: ${tried.join(', ')}` : 'no key was available to try';
    super('auth', host,
      `SSH authentication failed for ${user}@${host} (${what}). Check the user name, that the cluster's ` +
      `key file is right, and that its public key is in ~/.ssh/authorized_keys on the host; or load the key into ssh-agent.`);
  }
}

export class ConnectionRefusedError extends TransportError {
  constructor(host: string, cause?: unknown) {
    super('refused', host,
      `Connection to ${host} refused: nothing accepts SSH connections on that port. ` +
      `Check that the machine is running, that sshd has started, and the port number.`, { cause });
  }
}

export class ConnectTimeoutError extends TransportError {
  constructor(host: string, ms: number, stage: string, cause?: unknown) {
    super('timeout', host,
      `Timed out after ${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s connecting to ${host} (${stage}). ` +
      `Check that the machine is running and reachable from here (address, firewall or security group, VPN).`, { cause });
  }
}

export class HostUnreachableError extends TransportError {
  constructor(host: string, code: string, cause?: unknown) {
    const why = code === 'ENOTFOUND' || code === 'EAI_AGAIN'
      ? 'its name does not resolve; check the host name and DNS'
      : 'there is no route to it; check the address, your network and VPN';
    super('unreachable', host, `Host ${host} is unreachable (${code}): ${why}.`, { cause });
  }
}

export interface HostKeyMismatch { fingerprint: string; keyType: string; file: string; line: number; }

export class HostKeyChangedError extends TransportError {
  constructor(host: string, readonly presented: string, keyType: string, readonly expected: HostKeyMismatch[]) {
    const first = expected[0];
    const was = expected.map((e) => `${e.fingerprint} (${e.keyType}, ${e.file}:${e.line})`).join(', ');
    super('host-key-changed', host,
      `Host key for ${host} has CHANGED, refusing to connect. Expected ${was}; the host presented ` +
      `${presented} (${keyType}). Someone may be intercepting the connection, or the machine was ` +
      `re-created at the same address. If the change is expected, remove the old key from ${first.file} ` +
      `line ${first.line} and connect again.`);
  }
}

export class HostKeyRejectedError extends TransportError {
  constructor(host: string, readonly fingerprint: string, keyType: string, reason: string) {
    super('host-key-rejected', host,
      `Host key of ${host} (${keyType} ${fingerprint}) is not known and was not accepted: ${reason}. ` +
      `Verify the fingerprint with the machine's owner, then accept it or add it to known_hosts.`);
  }
}

export class ConnectionLostError extends TransportError {
  constructor(host: string, detail: string, cause?: unknown) {
    super('connection-lost', host,
      `Connection to ${host} was lost (${detail}). Check that the machine is still running and the network is up; ` +
      `the next command reconnects.`, { cause });
  }
}

export class ChannelError extends TransportError {
  constructor(host: string, detail: string, cause?: unknown) {
    super('channel', host, `Could not start a command on ${host}: ${detail}.`, { cause });
  }
}

export class AbortedError extends TransportError {
  constructor(host: string) {
    super('aborted', host, `Command on ${host} was cancelled.`);
  }
}

export class TransportConfigError extends TransportError {
  constructor(host: string, detail: string) {
    super('config', host, `SSH settings for ${host}: ${detail}.`);
  }
}

/** Maps a socket or ssh2 error raised while connecting to one of the typed errors. */
export function classifyConnectError(host: string, err: unknown, timeoutMs: number): TransportError {
  if (err instanceof TransportError) return err;
  const e = err as { code?: string; level?: string; message?: string };
  const code = e?.code ?? '';
  const msg = e?.message ?? String(err);
  if (code === 'ECONNREFUSED') return new ConnectionRefusedError(host, err);
  if (['EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'EADDRNOTAVAIL', 'EHOSTDOWN', 'ENETDOWN'].includes(code)) {
    return new HostUnreachableError(host, code, err);
  }
  if (code === 'ETIMEDOUT' || e?.level === 'client-timeout') return new ConnectTimeoutError(host, timeoutMs, 'no answer', err);
  if (/Channel open failure: Connection refused/i.test(msg)) return new ConnectionRefusedError(host, err);
  if (/Channel open failure/i.test(msg)) return new HostUnreachableError(host, 'jump host could not connect', err);
  if (code === 'ECONNRESET' || code === 'EPIPE' || /before handshake|Connection lost/i.test(msg)) {
    return new ConnectionLostError(host, `closed during the handshake: ${msg}; sshd may be starting up or limiting new connections (MaxStartups)`, err);
  }
  return new ConnectionLostError(host, msg, err);
}

/** Errors worth a reconnect attempt (the machine may be rebooting), as opposed to wrong settings. */
export function isTransient(err: unknown): boolean {
  return err instanceof TransportError && ['refused', 'timeout', 'connection-lost', 'unreachable'].includes(err.kind);
}
