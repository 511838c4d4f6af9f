// An interactive shell on a pty over an existing pooled connection: the terminal uses the same
// host-key-verified SSH connection as every other operation on the cluster.
import type { ClientChannel } from 'ssh2';
import { shellQuote } from './shellQuote';
import { StreamChannel } from './streamChannel';
import type { InteractiveShell, ShellOptions } from './types';

/** The remote command: cd to the directory if it is there, then the user's login shell. */
export function shellCommand(cwd: string | undefined, container?: { runtime: string; name: string }): string {
  const start = container ? 'command -v bash >/dev/null && exec bash -l; exec sh -l' : 'exec "${SHELL:-/bin/sh}" -l';
  // "~/x" is expanded by the (container's) shell: quote only what follows it.
  const dir = !cwd ? undefined : cwd === '~' ? '"$HOME"' : cwd.startsWith('~/') ? `"$HOME"/${shellQuote(cwd.slice(2))}` : shellQuote(cwd);
  const inner = dir ? `cd ${dir} 2>/dev/null; ${start}` : start;
  if (!container) return inner;
  return `exec ${shellQuote(container.runtime)} exec -it ${shellQuote(container.name)} /bin/sh -c ${shellQuote(inner)}`;
}

export function wrapShellStream(stream: ClientChannel, opts: ShellOptions, release: () => void): InteractiveShell {
  let code: number | null = null;
  stream.once('exit', (c: number | null) => { code = typeof c === 'number' ? c : null; });
  const channel = new StreamChannel({
    write: (b) => { stream.write(b); },
    end: () => { stream.end(); },
    close: () => { stream.close(); },
  });
  stream.on('data', (b: Buffer) => channel.pushData(b));
  stream.stderr.on('data', (b: Buffer) => channel.pushData(b));
  stream.on('error', () => undefined); // keystrokes after the peer closed; close reports the end
  stream.once('close', () => {
    release();
    channel.finish(code);
  });
  let size = { cols: opts.cols, rows: opts.rows };
  return {
    write: (d) => channel.write(typeof d === 'string' ? Buffer.from(d) : d),
    resize: (cols, rows) => {
      if (cols === size.cols && rows === size.rows) return;
      size = { cols, rows };
      stream.setWindow(rows, cols, 0, 0);
    },
    onData: (cb) => channel.onData(cb),
    onClose: (cb) => channel.onClose(cb),
    close: () => channel.close(),
  };
}
