// One client of the holder: one exec on a held connection, from request to exit (protocol.ts).
import type * as net from 'node:net';
import type { ClientChannel } from 'ssh2';
import { checkHostKey, loadKnownHosts } from '../hostKeys';
import { signalRemote } from '../sshTransport';
import type { SshConnection } from '../sshConnection';
import { TransportError } from '../errors';
import { encodeFrame, FrameDecoder, FrameError, type Frame } from './frames';
import { checkExec, payload, type ExecFrame } from './protocol';

export interface SessionHost {
  /** The held connection for this endpoint (made on first use). */
  connectionFor(req: ExecFrame): SshConnection;
  /** Takes over the socket for a whole CLI run (cliRequest.ts); absent: such requests are refused. */
  cli?(sock: net.Socket, req: Frame): void;
  /** A hint of the next run (cliRequest.ts `warm`); absent: ignored. */
  warm?(req: Frame): void;
}

export function serveSession(sock: net.Socket, host: SessionHost): void {
  const decoder = new FrameDecoder();
  let stage: 'request' | 'connecting' | 'key' | 'opening' | 'running' | 'done' = 'request';
  let stream: ClientChannel | undefined;
  const pendingIn: Frame[] = [];
  const send = (f: Frame): void => { if (!sock.destroyed) sock.write(encodeFrame(f)); };
  const fail = (kind: string, message: string): void => {
    stage = 'done';
    send({ t: 'fail', kind, message });
    sock.end();
  };
  let req: ExecFrame | undefined;
  let conn: SshConnection | undefined;

  const feed = (f: Frame): void => {
    if (f.t === 'in') stream!.write(payload(f) ?? Buffer.alloc(0));
    else if (f.t === 'eof') stream!.end();
  };

  const open = async (): Promise<void> => {
    stage = 'opening';
    let exit: { code: number | null; signal?: string } | undefined;
    let release: () => void;
    let lost: () => boolean;
    try {
      const { value, release: r, client } = await conn!.openSession<ClientChannel>((c, cb) => c.exec(req!.command, (err, s) => {
        // exit may come in the same read as the open reply: listen before anything awaits.
        if (!err) s.once('exit', (code: number | null, sig?: string) => { exit = { code: typeof code === 'number' ? code : null, signal: sig?.replace(/^SIG/, '') }; });
        cb(err, s);
      }));
      stream = value;
      release = r;
      lost = () => conn!.isLost(client);
    } catch (e) {
      return fail(e instanceof TransportError ? e.kind : 'channel', (e as Error).message);
    }
    if (sock.destroyed) {
      // The client left while the channel opened: end the command at once.
      stream.once('close', () => release());
      signalRemote(stream, 'TERM');
      stream.close();
      return;
    }
    stage = 'running';
    send({ t: 'open' });
    pendingIn.splice(0).forEach(feed);
    const relay = (t: 'out' | 'err') => (b: Buffer): void => {
      // Backpressure: a slow client pauses the remote command's output, nothing piles up here.
      if (!sock.destroyed && !sock.write(encodeFrame({ t, d: b.toString('base64') }))) {
        stream!.pause();
        sock.once('drain', () => stream!.resume());
      }
    };
    stream.on('data', relay('out'));
    stream.stderr.on('data', relay('err'));
    stream.on('error', () => undefined);
    // Exit goes after the last byte: the channel's close can come while output is still
    // buffered in the stream (or paused by a slow client), so both streams must have ended.
    let stdoutEnded = false;
    let stderrEnded = false;
    let closed = false;
    const finish = (): void => {
      if (!stdoutEnded || !stderrEnded || !closed) return;
      if (stage === 'running') {
        stage = 'done';
        send({ t: 'exit', code: exit?.code ?? null, ...(exit?.signal ? { signal: exit.signal } : {}), ...(!exit && lost() ? { lost: true } : {}) });
        sock.end();
      }
    };
    stream.once('end', () => { stdoutEnded = true; finish(); });
    stream.stderr.once('end', () => { stderrEnded = true; finish(); });
    stream.once('close', () => {
      closed = true;
      // The slot is free once the server has closed the channel; stderr may never end if lost.
      release();
      if (!stderrEnded) setTimeout(() => { stderrEnded = true; finish(); }, 50).unref();
      // A lost connection may never end stdout either; output paused by a slow client still drains first.
      if (!stdoutEnded && !stream!.isPaused()) setTimeout(() => { stdoutEnded = true; finish(); }, 50).unref();
      finish();
    });
  };

  const onFrame = async (f: Frame): Promise<void> => {
    if (stage === 'request' && f.t === 'cli') {
      stage = 'done';
      if (!host.cli) { send({ t: 'fallback', why: 'this holder runs no CLI workers' }); sock.end(); return; }
      // The socket is the worker's from here: this session reads no more of it.
      sock.removeAllListeners('data');
      return host.cli(sock, f);
    }
    if (stage === 'request' && f.t === 'warm') {
      stage = 'done';
      host.warm?.(f);
      sock.end();
      return;
    }
    if (stage === 'request') {
      const checked = checkExec(f);
      if (typeof checked === 'string') return fail('config', `bad request: ${checked}`);
      req = checked;
      stage = 'connecting';
      try {
        conn = host.connectionFor(req);
        await conn.ready();
        const key = conn.verifiedHostKey;
        // The connection may have been verified for an earlier caller: check it against this
        // caller's own files too (a key removed or changed there since is refused now).
        const check = key ? checkHostKey(await loadKnownHosts(req.target.knownHostsFiles), req.target.host, req.target.port, key) : undefined;
        if (!key || check?.status !== 'known') return fail('host-key-rejected', `the host key of ${req.target.host}:${req.target.port} is not known to this caller (${check?.status ?? 'none'})`);
        stage = 'key';
        send({ t: 'key', key: key.toString('base64') });
      } catch (e) {
        fail(e instanceof TransportError ? e.kind : 'connection-lost', (e as Error).message);
      }
      return;
    }
    if (stage === 'key' && f.t === 'go') return open();
    if (stage === 'opening' && (f.t === 'in' || f.t === 'eof')) { pendingIn.push(f); return; }
    if (stage === 'running' && (f.t === 'in' || f.t === 'eof')) return feed(f);
    if (stage !== 'done') fail('config', `unexpected ${JSON.stringify(f.t).slice(0, 40)} frame`);
  };

  sock.on('data', (chunk: Buffer) => {
    let frames: Frame[];
    try {
      frames = decoder.push(chunk);
    } catch (e) {
      // Garbage or a huge length: drop this client, the holder and its other clients go on.
      sock.destroy();
      if (!(e instanceof FrameError)) throw e;
      return;
    }
    for (const f of frames) void onFrame(f).catch(() => sock.destroy());
  });
  sock.on('error', () => undefined);
  sock.on('close', () => {
    // The client went away (Ctrl-C, kill, abort): the command is ended as the direct path does.
    if (stream && stage !== 'done') {
      stage = 'done';
      signalRemote(stream, 'TERM');
      stream.close();
    }
    stage = 'done';
  });
}
