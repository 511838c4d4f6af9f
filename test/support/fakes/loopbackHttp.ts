// A plain http server on 127.0.0.1 and a free port, for the small metadata fakes.
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

export abstract class LoopbackHttp {
  private server?: http.Server;
  port = 0;

  protected abstract handle(req: http.IncomingMessage, res: http.ServerResponse): void;

  async start(): Promise<this> {
    this.server = http.createServer((req, res) => this.handle(req, res));
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', r));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise((r) => this.server?.close(r));
  }
}
