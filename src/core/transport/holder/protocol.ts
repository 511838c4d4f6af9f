// The holder's messages, checked where they arrive. One exec per socket connection:
//   client → holder  exec {target, command}     the SSH endpoint and the remote command line
//   holder → client  key {key}                  the host key the connection verified (base64 blob)
//   client → holder  go                         the client checked that key against its own store
//   holder → client  open                       the channel is open, the command runs
//   client → holder  in {d} / eof               stdin (base64) / end of stdin
//   holder → client  out {d} / err {d}          stdout / stderr (base64)
//   holder → client  exit {code, signal?, lost?} the command ended (lost: the SSH connection dropped)
//   holder → client  fail {kind, message}       nothing more will come (before `open`: nothing ran)
// Closing the socket before `exit` cancels: the command gets SIGTERM and its channel is closed.
import type { Frame } from './frames';

/** The endpoint as the caller would connect to it. Key files travel as paths, never contents. */
export interface HolderTarget {
  host: string;
  port: number;
  user: string;
  keyFile?: string;
  agent: string | false;
  useDefaultKeys?: boolean;
  sshDir: string;
  /** Every known_hosts file the caller trusts; the holder verifies against exactly these. */
  knownHostsFiles: string[];
}

export interface ExecFrame extends Frame { t: 'exec'; target: HolderTarget; command: string }

const str = (v: unknown): v is string => typeof v === 'string' && v.length > 0 && v.length < 4096 && !v.includes('\0');

/** The exec request, or an error message naming what is wrong with it. */
export function checkExec(f: Frame): ExecFrame | string {
  if (f.t !== 'exec') return `expected exec, got ${JSON.stringify(f.t).slice(0, 40)}`;
  const t = f.target as Partial<HolderTarget> | undefined;
  if (!t || typeof t !== 'object') return 'target: missing';
  if (!str(t.host) || !str(t.user)) return 'target: host and user must be strings';
  if (!Number.isInteger(t.port) || t.port! < 1 || t.port! > 65535) return 'target.port: not a port';
  if (t.keyFile !== undefined && !str(t.keyFile)) return 'target.keyFile: not a path';
  if (t.agent !== false && !str(t.agent)) return 'target.agent: not a path or false';
  if (t.useDefaultKeys !== undefined && typeof t.useDefaultKeys !== 'boolean') return 'target.useDefaultKeys: not a boolean';
  if (!str(t.sshDir)) return 'target.sshDir: not a path';
  if (!Array.isArray(t.knownHostsFiles) || !t.knownHostsFiles.length || !t.knownHostsFiles.every(str)) return 'target.knownHostsFiles: not a list of paths';
  if (typeof f.command !== 'string' || !f.command.length || f.command.length > 128 * 1024) return 'command: not a string';
  return f as ExecFrame;
}

/** A base64 payload of an in/out/err frame, or undefined when it is not one. */
export function payload(f: Frame): Buffer | undefined {
  return typeof f.d === 'string' ? Buffer.from(f.d, 'base64') : undefined;
}
