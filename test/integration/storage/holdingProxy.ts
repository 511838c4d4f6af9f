// An HTTP proxy in front of moto that can hold chosen requests: lets a test keep an upload
// in flight for as long as it likes, so "the wait returns only after the upload" is checked by
// order of events, not by timing.
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface HoldingProxy {
  url: string;
  /** Requests matching this are held until release(); set before they are sent. */
  hold(match: (method: string, path: string) => boolean): void;
  /** Resolves when a held request has arrived. */
  held(): Promise<string>;
  release(): void;
  close(): Promise<void>;
}

export async function startHoldingProxy(target: string): Promise<HoldingProxy> {
  let matcher: ((m: string, p: string) => boolean) | undefined;
  let waiting: Array<() => void> = [];
  let arrived: string[] = [];
  let onArrive: ((p: string) => void) | undefined;
  const forward = (req: http.IncomingMessage, res: http.ServerResponse, body: Buffer): void => {
    const t = new URL(target);
    const out = http.request({ host: t.hostname, port: t.port, method: req.method, path: req.url, headers: req.headers }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    out.on('error', () => { res.destroy(); });
    out.end(body);
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      if (matcher?.(req.method ?? '', req.url ?? '')) {
        arrived.push(req.url ?? '');
        onArrive?.(req.url ?? '');
        waiting.push(() => forward(req, res, body));
      } else forward(req, res, body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hold(m) { matcher = m; },
    held: () => new Promise((resolve) => {
      if (arrived.length) return resolve(arrived[0]);
      onArrive = resolve;
    }),
    release() {
      matcher = undefined;
      const w = waiting;
      waiting = [];
      arrived = [];
      for (const f of w) f();
    },
    close: () => new Promise((r) => { server.closeAllConnections(); server.close(() => r()); }),
  };
}
