// A TCP relay on 127.0.0.1 in front of a local server, whose live connections a test can
// reset mid-stream (as a dropped network would), to prove that a client resumes.
import * as net from 'node:net';

export interface TcpCutter {
  port: number;
  /** Resets every connection open now (RST both ways); returns how many. */
  cutAll(): number;
  close(): Promise<void>;
}

export async function tcpCutter(targetPort: number): Promise<TcpCutter> {
  const open = new Set<{ a: net.Socket; b: net.Socket }>();
  const server = net.createServer((a) => {
    const b = net.connect(targetPort, '127.0.0.1');
    const pair = { a, b };
    open.add(pair);
    const end = () => {
      open.delete(pair);
      a.destroy();
      b.destroy();
    };
    a.on('error', end).on('close', end);
    b.on('error', end).on('close', end);
    a.pipe(b);
    b.pipe(a);
  });
  await new Promise<void>((res) => server.listen(0, '127.0.0.1', res));
  return {
    port: (server.address() as net.AddressInfo).port,
    cutAll() {
      const n = open.size;
      for (const { a, b } of [...open]) {
        a.resetAndDestroy();
        b.resetAndDestroy();
      }
      open.clear();
      return n;
    },
    close: () => new Promise<void>((res) => {
      for (const { a, b } of open) (a.destroy(), b.destroy());
      server.close(() => res());
    }),
  };
}
