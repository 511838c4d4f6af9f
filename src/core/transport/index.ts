// Transport layer: run commands and copy files on a node over SSH (pooled ssh2 connections) or
// on this machine. See types.ts for the interface.
export type {
  Channel, ExecOptions, ExecResult, InteractiveShell, ShellOptions, SshEndpoint, SshTransportOptions, Transport,
} from './types';
export {
  AbortedError, AuthError, ChannelError, ConnectTimeoutError, ConnectionLostError, ConnectionRefusedError,
  HostKeyChangedError, HostKeyRejectedError, HostUnreachableError, TransportConfigError, TransportError,
  isTransient, type TransportErrorKind,
} from './errors';
export { SshTransport, createSshTransport } from './sshTransport';
export { SshPool, defaultSshPool } from './sshPool';
export { LocalTransport, createLocalTransport } from './localTransport';
export { ChannelLimiter } from './channelLimiter';
export { buildExecCommand, buildShellCommand, quoteArgv, shellQuote } from './shellQuote';
export {
  checkHostKey, fingerprint, forgetHostKey, hashHostName, knownHostsLine, knownHostsName, loadKnownHosts,
  parseKnownHosts, recordHostKey, type KnownHostEntry,
} from './hostKeys';
