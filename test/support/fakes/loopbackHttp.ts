// A server on 127.0.0.1 and a free port for the fakes: plain http, or https with a test cert.
import * as http from 'node:http';
import * as https from 'node:https';
import type { AddressInfo } from 'node:net';

export abstract class LoopbackHttp {
  private server?: http.Server;
  port = 0;

  constructor(private readonly tls?: { key: string; cert: string }) {}

  protected abstract handle(req: http.IncomingMessage, res: http.ServerResponse): void | Promise<void>;

  async start(): Promise<this> {
    const onRequest = (req: http.IncomingMessage, res: http.ServerResponse) => void this.handle(req, res);
    this.server = this.tls ? https.createServer({ key: this.tls.key, cert: this.tls.cert }, onRequest) : http.createServer(onRequest);
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', r));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise((r) => this.server?.close(r));
  }
}
