// A login shell in a pod over the exec API with a TTY: what "Open SSH Terminal" gives a
// Kubernetes cluster (there is no sshd in the pod). Keystrokes go on the stdin channel, the
// terminal's size on the resize channel (4: {"Width","Height"}, as kubectl sends it), and the
// shell's exit code comes back in the stream's closing Status.
import { PassThrough, Writable } from 'node:stream';
import * as k8s from '@kubernetes/client-node';
import type { InteractiveShell, ShellOptions } from '../../transport/types';
import type { KubeApi } from './api';
import type { PodTarget } from './execTransport';
import { exitCode } from './execWrap';

const RESIZE_CHANNEL = 4;

/**
 * cd to $1 when it exists ("~/" is home), else home (an exec starts in the image's working
 * directory, often /), then bash -l, else sh -l (a slim image may lack bash).
 */
const LOGIN = 'd=$1; case $d in "~") d=$HOME;; "~/"*) d="$HOME/${d#??}";; esac; [ -n "$d" ] && cd -- "$d" 2>/dev/null || cd -- "${HOME:-/}" 2>/dev/null; ' +
  'if command -v bash >/dev/null 2>&1; then exec bash -l; fi; exec sh -l';

export async function openKubeShell(api: KubeApi, target: PodTarget, opts: ShellOptions): Promise<InteractiveShell> {
  const { kc } = api.clients(target.context);
  const stdin = new PassThrough();
  const data: ((b: Buffer) => void)[] = [];
  const early: Buffer[] = [];
  const out = new Writable({
    write(c: Buffer, _e, cb) {
      if (data.length) data.forEach((f) => f(c));
      else early.push(c);
      cb();
    },
  });
  const closers: ((c: number | null) => void)[] = [];
  let closed: { code: number | null } | undefined;
  const end = (code: number | null) => {
    if (closed) return;
    closed = { code };
    closers.splice(0).forEach((f) => f(code));
  };
  let ws: Awaited<ReturnType<k8s.Exec['exec']>>;
  try {
    ws = await new k8s.Exec(kc).exec(target.namespace, target.pod, target.container, ['/bin/sh', '-c', LOGIN, 'sh', opts.cwd ?? ''], out, null, stdin, true, (s) => end(exitCode(s)));
  } catch (e) {
    throw new Error(`cannot open a shell in ${target.context}/${target.namespace}/${target.pod}: ${(e as Error).message ?? String(e)}`);
  }
  ws.on('close', () => end(null));
  const resize = (cols: number, rows: number) => {
    if (closed || ws.readyState !== ws.OPEN) return;
    ws.send(Buffer.concat([Buffer.from([RESIZE_CHANNEL]), Buffer.from(JSON.stringify({ Width: Math.max(1, cols | 0), Height: Math.max(1, rows | 0) }))]));
  };
  resize(opts.cols, opts.rows);
  return {
    write: (d) => void (closed || stdin.write(typeof d === 'string' ? Buffer.from(d) : d)),
    resize,
    onData: (cb) => {
      data.push(cb);
      early.splice(0).forEach(cb);
    },
    onClose: (cb) => (closed ? cb(closed.code) : closers.push(cb)),
    close: () => ws.close(),
  };
}
