// The transport interface: run commands and copy files on a node, over SSH or on this machine.
// Both implementations behave the same way, so core code never asks which one it holds.

export interface ExecOptions {
  /** Fed to the command's stdin, which is then closed. Without it stdin is closed at once. */
  stdin?: Buffer | string | NodeJS.ReadableStream;
  /** Added to the environment of the command (names must be shell identifiers). */
  env?: Record<string, string>;
  /** Working directory; a leading "~/" means the user's home. */
  cwd?: string;
  /** Aborting sends SIGTERM to the command, closes the channel and rejects with AbortedError. */
  signal?: AbortSignal;
  /** Called with output as it arrives (the result still holds all of it). */
  onStdout?(b: Buffer): void;
  onStderr?(b: Buffer): void;
}

export interface ExecResult {
  /** Exit status; null when the command was killed by a signal (see `signal`) or none was sent. */
  code: number | null;
  /** Signal name without "SIG", e.g. "KILL", when the command was killed by one. */
  signal?: string;
  stdout: Buffer;
  stderr: Buffer;
}

/**
 * A long-lived command with its stdio, e.g. the agent's JSON-lines "serve" mode or a log
 * follower. Output that arrives before a callback is registered is kept and delivered to it.
 */
export interface Channel {
  write(b: Buffer | string): void;
  /** Closes the command's stdin. */
  end(): void;
  onData(cb: (b: Buffer) => void): void;
  onStderr(cb: (b: Buffer) => void): void;
  /** Called once: exit code, or null when the command was signalled or the connection was lost. */
  onClose(cb: (code: number | null) => void): void;
  /** Ends the command (SIGTERM, then the channel is closed). */
  close(): void;
}

export interface Transport {
  /**
   * Runs argv[0] with arguments argv[1..]. Over SSH every element is single-quoted for the
   * remote POSIX shell, so the program receives exactly these strings. Buffers all output;
   * use openChannel for unbounded streams.
   */
  exec(argv: string[], opts?: ExecOptions): Promise<ExecResult>;
  /** Runs `/bin/sh -c script` (on the remote node for SSH). */
  execShell(script: string, opts?: ExecOptions): Promise<ExecResult>;
  /** Starts argv as exec() does and hands back its stdio; resolves once it has started. */
  openChannel(argv: string[], opts?: Omit<ExecOptions, 'stdin' | 'onStdout' | 'onStderr'>): Promise<Channel>;
  /**
   * Copies a file or a directory tree. A file replaces remotePath atomically (written beside it,
   * then renamed); a directory makes remotePath a directory holding the same tree (existing
   * files are overwritten, others left). Missing parent directories are created. Permission
   * bits are kept. A leading "~/" in remotePath means the user's home.
   */
  upload(localPath: string, remotePath: string): Promise<void>;
  /** Releases this transport; the shared SSH connection closes when its last user closes. */
  close(): Promise<void>;
  /** For messages and logs, e.g. "ssh ubuntu@10.0.0.5:22" or "local". */
  readonly description: string;
  /**
   * Each exec costs far more than sending the agent (~300 KB): the agent's check and install
   * go in one exec, the archive always sent (Kubernetes exec: a new stream and runc exec per call).
   */
  readonly installInOneExec?: boolean;
}

/** Where to connect and as whom. */
export interface SshEndpoint {
  host: string;
  /** Default 22. */
  port?: number;
  user: string;
  /** The cluster's private key file. When given, ~/.ssh default keys are not tried. */
  keyFile?: string;
  /** For an encrypted keyFile. */
  passphrase?: string;
}

export interface SshTransportOptions extends SshEndpoint {
  /** ProxyJump through one host; authenticated with its own keyFile, else the same sources. */
  jump?: SshEndpoint;
  /** ssh-agent socket; default SSH_AUTH_SOCK (Windows: the OpenSSH agent pipe); false = none. */
  agent?: string | false;
  /** Try ~/.ssh/id_ed25519, id_ecdsa, id_rsa. Default: only when no keyFile is given. */
  useDefaultKeys?: boolean;
  /** Directory for default keys and the user's known_hosts. Default ~/.ssh. */
  sshDir?: string;
  /** Read-only known_hosts files. Default [<sshDir>/known_hosts]. */
  userKnownHostsFiles?: string[];
  /** Skydeck's own known_hosts: read, and where accepted keys are recorded. */
  knownHostsFile?: string;
  /** Record an unknown host key without asking (hosts Skydeck itself created). */
  trustOnFirstUse?: boolean;
  /**
   * Asked about an unknown host key when trustOnFirstUse is off. `host` is "name" or
   * "name:port"; `fingerprint` is "SHA256:…". Accepting records the key in knownHostsFile.
   * Without this callback an unknown key is refused.
   */
  onUnknownHostKey?(host: string, fingerprint: string, keyType: string): Promise<boolean>;
  /** TCP connect + handshake + auth, not counting time spent in onUnknownHostKey. Default 15 s. */
  connectTimeoutMs?: number;
  /** Default 15 s; after keepaliveCountMax (default 3) unanswered the connection is dropped. */
  keepaliveIntervalMs?: number;
  keepaliveCountMax?: number;
  /** Concurrent channels per connection; default 8 (sshd's MaxSessions defaults to 10). */
  maxChannels?: number;
  /** After a connection that worked is lost: retries of the reconnect and their backoff. */
  reconnect?: { retries?: number; baseDelayMs?: number; maxDelayMs?: number };
  /** Diagnostics (connects, drops, retries). Never receives keys or passphrases. */
  log?: (message: string) => void;
}

/** An interactive login shell on a pseudo-terminal (Open SSH Terminal). */
export interface InteractiveShell {
  /** Keystrokes, as the terminal sends them. */
  write(data: string | Buffer): void;
  resize(cols: number, rows: number): void;
  /** Terminal output (stdout and stderr are one stream on a pty). */
  onData(cb: (b: Buffer) => void): void;
  /** Called once: the shell's exit code, or null when it was signalled or the connection dropped. */
  onClose(cb: (code: number | null) => void): void;
  close(): void;
}

export interface ShellOptions {
  cols: number;
  rows: number;
  /** Start in this directory when it exists (a leading "~/" means home). */
  cwd?: string;
  /** Open the shell inside this container of the node (`<runtime> exec -it`). */
  container?: { runtime: string; name: string };
}
