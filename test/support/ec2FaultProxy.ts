// A thin HTTP proxy on 127.0.0.1 in front of moto that injects what moto cannot: capacity
// errors per zone, chosen errors per action, instances that appear late in DescribeInstances,
// and TerminateInstances calls that answer success and do nothing.
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ec2ErrorXml, fakeTerminateXml, instanceIdsIn, withoutInstances } from './ec2FaultXml';

export interface ProxyCall {
  action: string;
  zone?: string;
  /** What the proxy did: forwarded, or the fault it answered with. */
  outcome: string;
  /** RunInstances: the instance profile it names, if any. */
  profile?: string;
}

export interface InjectedError {
  action: string;
  code: string;
  status: number;
  message?: string;
  /** How many calls to fail; Infinity for all. */
  times: number;
}

export class Ec2FaultProxy {
  /** RunInstances in these zones answers InsufficientInstanceCapacity (HTTP 500, as EC2 does). */
  readonly capacityZones = new Set<string>();
  readonly errors: InjectedError[] = [];
  /** Instances created through the proxy stay out of DescribeInstances for this long. */
  hideNewForMs = 0;
  /** TerminateInstances answers "shutting-down" without reaching moto. */
  swallowTerminate = false;
  readonly calls: ProxyCall[] = [];
  readonly swallowed: string[] = [];
  private readonly createdAt = new Map<string, number>();
  private server?: http.Server;
  url = '';

  constructor(private readonly upstream: string) {}

  async start(): Promise<this> {
    this.server = http.createServer((req, res) => void this.handle(req, res));
    // Node closes a keep-alive connection idle for 5 s; an SDK client that picks that socket
    // up at that moment gets ECONNRESET, which the tests' maxAttempts 1 does not retry (a CI
    // failure: one region of a 37-region sweep "unknown"). Idle connections stay open here.
    this.server.keepAliveTimeout = 10 * 60_000;
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  stop(): Promise<void> {
    return new Promise((r) => (this.server ? this.server.close(() => r()) : r()));
  }

  /** Clears faults and history between tests. */
  clear(): void {
    this.capacityZones.clear();
    this.errors.length = 0;
    this.hideNewForMs = 0;
    this.swallowTerminate = false;
    this.calls.length = 0;
    this.swallowed.length = 0;
    this.createdAt.clear();
  }

  count(action: string, outcome?: string): number {
    return this.calls.filter((c) => c.action === action && (!outcome || c.outcome === outcome)).length;
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const params = new URLSearchParams(body);
    const action = params.get('Action') ?? '?';
    const zone = params.get('Placement.AvailabilityZone') ?? undefined;
    const profile = params.get('IamInstanceProfile.Name') ?? undefined;
    const reply = (status: number, xml: string, outcome: string) => {
      this.calls.push({ action, zone, outcome, ...(profile ? { profile } : {}) });
      res.writeHead(status, { 'content-type': 'text/xml' }).end(xml);
    };
    const injected = this.errors.find((e) => e.action === action && e.times > 0);
    if (injected) {
      injected.times--;
      return reply(injected.status, ec2ErrorXml(injected.code, injected.message ?? `${injected.code} (injected)`), injected.code);
    }
    if (action === 'RunInstances' && zone && this.capacityZones.has(zone)) {
      return reply(500, ec2ErrorXml('InsufficientInstanceCapacity', `We currently do not have sufficient capacity in the Availability Zone you requested (${zone}).`), 'InsufficientInstanceCapacity');
    }
    if (action === 'TerminateInstances' && this.swallowTerminate) {
      const ids = [...params.entries()].filter(([k]) => /^InstanceId\.\d+$/.test(k)).map(([, v]) => v);
      this.swallowed.push(...ids);
      return reply(200, fakeTerminateXml(ids), 'swallowed');
    }
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string' && !['host', 'content-length', 'connection'].includes(k)) headers[k] = v;
    let up: Response;
    try {
      up = await fetch(this.upstream + (req.url ?? '/'), { method: req.method, headers, body: req.method === 'GET' ? undefined : body });
    } catch (e) {
      return reply(502, ec2ErrorXml('ServiceUnavailable', `proxy: ${(e as Error).message}`), 'upstream-down');
    }
    let text = await up.text();
    if (action === 'RunInstances' && up.ok) for (const id of instanceIdsIn(text)) this.createdAt.set(id, Date.now());
    if (action === 'DescribeInstances' && up.ok && this.hideNewForMs > 0) {
      const now = Date.now();
      text = withoutInstances(text, (id) => now - (this.createdAt.get(id) ?? -Infinity) < this.hideNewForMs);
    }
    reply(up.status, text, 'forwarded');
  }
}
