// A TLS proxy on 127.0.0.1 in front of the kit's real API server, for the kubernetes leak
// scenarios: it presents a server certificate minted from the kit's CA (so the client checks
// it as it would the real one), forwards every request upstream with the kit's admin client
// certificate, and fails the requests a rule picks (method + path): an HTTP error with a
// Kubernetes Status body, a reset connection, a request held until the socket is dropped,
// or a request the API server carries out whose answer is then replaced by an error.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as https from 'node:https';
import type * as http from 'node:http';
import type * as net from 'node:net';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';

export type FaultEffect =
  | { kind: 'status'; code: number; reason?: string }
  | { kind: 'reset' }
  /** Held, then the socket is dropped without an answer (an idle timeout on the way). */
  | { kind: 'timeout'; holdMs: number }
  /** Forwarded and carried out; the client gets this error instead of the answer. */
  | { kind: 'after'; code: number };

export interface FaultRule {
  method: string;
  path: RegExp;
  effect: FaultEffect;
  /** How many matching requests to fail; -1 for all. */
  times: number;
}

export interface SeenRequest { method: string; path: string; outcome: string; status?: number }

export class KubeFaultProxy {
  readonly rules: FaultRule[] = [];
  readonly seen: SeenRequest[] = [];
  /** Called when the API server answered a request, before the client sees the answer. */
  onUpstream?: (r: SeenRequest) => void;
  /** Rewrites nothing; lets a scenario act on the real server before a request goes on (e.g. hold a pod in Terminating). */
  beforeForward?: (method: string, path: string) => Promise<void>;
  url = '';
  private server?: https.Server;
  /** The TCP socket of each client connection, by the client's port (loopback: one client host). */
  private readonly tcp = new Map<number, net.Socket>();
  private readonly dir = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-kfault-'));
  private readonly client: { ca: Buffer; cert: Buffer; key: Buffer };

  constructor(private readonly runDir: string, private readonly upstreamPort: number) {
    const pki = path.join(runDir, 'pki');
    this.client = { ca: fs.readFileSync(path.join(pki, 'ca.crt')), cert: fs.readFileSync(path.join(pki, 'admin.crt')), key: fs.readFileSync(path.join(pki, 'admin.key')) };
  }

  async start(): Promise<this> {
    const pki = path.join(this.runDir, 'pki');
    const key = path.join(this.dir, 'proxy.key');
    const csr = path.join(this.dir, 'proxy.csr');
    const crt = path.join(this.dir, 'proxy.crt');
    const ext = path.join(this.dir, 'ext.cnf');
    fs.writeFileSync(ext, 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n');
    execFileSync('openssl', ['req', '-new', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', csr, '-subj', '/CN=skydeck-fault-proxy'], { stdio: 'ignore' });
    execFileSync('openssl', ['x509', '-req', '-in', csr, '-CA', path.join(pki, 'ca.crt'), '-CAkey', path.join(pki, 'ca.key'), '-CAcreateserial', '-CAserial', path.join(this.dir, 'ca.srl'), '-out', crt, '-days', '1', '-extfile', ext], { stdio: 'ignore' });
    this.server = https.createServer({ key: fs.readFileSync(key), cert: fs.readFileSync(crt) }, (req, res) => void this.handle(req, res));
    // A reset is sent on the TCP socket under the TLS one (a TLS socket cannot reset: its
    // resetAndDestroy throws, and the request was left hanging until the client's deadline).
    this.server.on('connection', (s: net.Socket) => {
      this.tcp.set(s.remotePort!, s);
      s.once('close', () => this.tcp.get(s.remotePort!) === s && this.tcp.delete(s.remotePort!));
    });
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', r));
    this.url = `https://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  /** The kit's admin kubeconfig pointed at this proxy (same CA, same client certificate). */
  kubeconfig(adminKubeconfig: string): string {
    const f = path.join(this.dir, 'kubeconfig');
    fs.writeFileSync(f, fs.readFileSync(adminKubeconfig, 'utf8').replace(/server: https:\/\/127\.0\.0\.1:\d+/g, `server: ${this.url}`), { mode: 0o600 });
    return f;
  }

  inject(...rules: FaultRule[]): void {
    this.rules.push(...rules);
  }

  clear(): void {
    this.rules.length = 0;
    this.seen.length = 0;
    this.onUpstream = undefined;
    this.beforeForward = undefined;
  }

  count(method: string, p: RegExp, outcome?: string): number {
    return this.seen.filter((s) => s.method === method && p.test(s.path) && (!outcome || s.outcome === outcome)).length;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((r) => (this.server ? this.server.close(() => r()) : r()));
    fs.rmSync(this.dir, { recursive: true, force: true });
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const method = req.method ?? 'GET';
    const p = req.url ?? '/';
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const rule = this.rules.find((r) => r.method === method && r.path.test(p) && r.times !== 0);
    if (rule && rule.times > 0) rule.times--;
    const e = rule?.effect;
    const note = (outcome: string, status?: number) => this.seen.push({ method, path: p, outcome, ...(status ? { status } : {}) });
    if (e?.kind === 'status') {
      note(`status ${e.code}`);
      return void res.writeHead(e.code, { 'content-type': 'application/json' }).end(statusBody(e.code, e.reason ?? `injected ${e.code} for ${method} ${p}`));
    }
    if (e?.kind === 'reset') {
      const tcp = this.tcp.get(req.socket.remotePort!);
      note(tcp ? 'reset' : 'reset: no TCP socket found, closed instead');
      return void (tcp ? tcp.resetAndDestroy() : req.socket.destroy());
    }
    if (e?.kind === 'timeout') {
      note('timeout');
      await new Promise((r) => setTimeout(r, e.holdMs));
      return void req.socket.destroy();
    }
    await this.beforeForward?.(method, p);
    const headers = { ...req.headers };
    delete headers.host;
    const up = await new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
      const u = https.request({ host: '127.0.0.1', port: this.upstreamPort, method, path: p, headers, ...this.client }, (r) => {
        const b: Buffer[] = [];
        r.on('data', (c: Buffer) => b.push(c)).on('end', () => resolve({ status: r.statusCode ?? 502, headers: r.headers, body: Buffer.concat(b) })).on('error', reject);
      });
      u.on('error', reject);
      u.end(Buffer.concat(chunks));
    }).catch((err: Error) => ({ status: 502, headers: {}, body: statusBody(502, `proxy: ${err.message}`) }));
    const seen: SeenRequest = { method, path: p, outcome: e?.kind === 'after' ? `after ${e.code}` : 'forwarded', status: up.status };
    this.seen.push(seen);
    this.onUpstream?.(seen);
    if (e?.kind === 'after') return void res.writeHead(e.code, { 'content-type': 'application/json' }).end(statusBody(e.code, `injected ${e.code} after the API server answered ${up.status}`));
    const h = { ...up.headers };
    delete h['transfer-encoding'];
    delete h['content-length'];
    res.writeHead(up.status, h).end(up.body);
  }
}

/** A metav1.Status body, as the API server answers errors (k8s.io/apimachinery/pkg/apis/meta/v1 types.go). */
function statusBody(code: number, message: string): Buffer {
  const reason = code === 403 ? 'Forbidden' : code === 404 ? 'NotFound' : code === 409 ? 'AlreadyExists' : 'InternalError';
  return Buffer.from(JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code }));
}
