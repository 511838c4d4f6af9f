// The client end of one holder exec: connect, ask, check the host key the holder used against
// the caller's own known_hosts, and let the command start. Anything short of "the command is
// running" is a `fallback` (the caller connects directly) unless it is an error that a direct
// connection would only repeat more slowly (an unreachable host).
import * as net from 'node:net';
import { Writable } from 'node:stream';
import { checkHostKey, loadKnownHosts } from '../hostKeys';
import { TransportError, type TransportErrorKind } from '../errors';
import { encodeFrame, FrameDecoder, type Frame } from './frames';
import type { HolderTarget } from './protocol';

/** A running command through the holder. Frames after `open` go to onFrame; onEnd once. */
export interface HolderSession {
  sock: net.Socket;
  onFrame(cb: (f: Frame) => void): void;
  /** Called once when the socket is gone; `exited` is false if no exit frame came first. */
  onEnd(cb: (exited: boolean) => void): void;
  /** A Writable whose writes become `in` frames and whose end is `eof`. */
  stdin(): Writable;
}

export type Opened = { session: HolderSession } | { fallback: string } | { error: TransportError };

/** How long the holder may take to connect and open the channel before the caller goes direct. */
export let ANSWER_MS = 20_000;
export function setAnswerMsForTests(ms: number): void { ANSWER_MS = ms; }

const DIRECT_IS_NO_BETTER: TransportErrorKind[] = ['refused', 'timeout', 'unreachable'];

export function openSession(sockPath: string, target: HolderTarget, command: string, display: string): Promise<Opened> {
  return new Promise((resolve) => {
    const sock = net.connect(sockPath);
    const decoder = new FrameDecoder();
    let opened = false;
    let exited = false;
    // Frames that come before the caller's onFrame (the promise resolves a tick after `open`,
    // and a quick command's output and exit can be in the same read): kept, then replayed.
    const early: Frame[] = [];
    let frameCb: (f: Frame) => void = (f) => { early.push(f); };
    const ends: Array<(exited: boolean) => void> = [];
    let ended = false;
    // A holder that accepts and then says nothing (stopped, wedged) must not hold the CLI: past
    // the holder's own connect timeout (15 s) and a margin, the caller goes direct.
    const silent = setTimeout(() => settle({ fallback: 'the holder did not answer' }), ANSWER_MS);
    const settle = (o: Opened): void => {
      if (opened) return;
      opened = true;
      clearTimeout(silent);
      if (!('session' in o)) sock.destroy();
      resolve(o);
    };
    const send = (f: Frame): boolean => (sock.destroyed ? false : sock.write(encodeFrame(f)));
    sock.on('connect', () => send({ t: 'exec', target, command }));
    sock.on('error', () => undefined);
    sock.on('close', () => {
      settle({ fallback: 'the holder closed the connection before the command started' });
      if (!ended) { ended = true; ends.forEach((cb) => cb(exited)); }
    });
    sock.on('data', (chunk: Buffer) => {
      let frames: Frame[];
      try { frames = decoder.push(chunk); } catch { sock.destroy(); return; }
      for (const f of frames) {
        if (opened) {
          if (f.t === 'exit') exited = true;
          frameCb(f);
        } else if (f.t === 'key' && typeof f.key === 'string') {
          const key = Buffer.from(f.key, 'base64');
          // Never run on the holder's word: the key must be one this caller's own files know.
          void loadKnownHosts(target.knownHostsFiles).then((entries) => {
            const check = checkHostKey(entries, target.host, target.port, key);
            if (check.status === 'known') send({ t: 'go' });
            else settle({ fallback: `host key ${check.status}` });
          }, () => settle({ fallback: 'known_hosts unreadable' }));
        } else if (f.t === 'open') {
          settle({ session });
        } else if (f.t === 'fail') {
          const kind = String(f.kind) as TransportErrorKind;
          if (DIRECT_IS_NO_BETTER.includes(kind)) settle({ error: new TransportError(kind, display, String(f.message)) });
          else settle({ fallback: `${kind}: ${String(f.message)}` });
        } else {
          settle({ fallback: `unexpected ${f.t} frame` });
        }
      }
    });
    const session: HolderSession = {
      sock,
      onFrame: (cb) => { frameCb = cb; early.splice(0).forEach(cb); },
      onEnd: (cb) => { if (ended) cb(exited); else ends.push(cb); },
      stdin: () => new Writable({
        write(chunk: Buffer, _enc, cb) {
          let ok = true;
          for (let i = 0; i < chunk.length; i += 64 * 1024) ok = send({ t: 'in', d: chunk.subarray(i, i + 64 * 1024).toString('base64') });
          if (ok || sock.destroyed) cb(); else sock.once('drain', () => cb());
        },
        final(cb) { send({ t: 'eof' }); cb(); },
      }),
    };
  });
}
