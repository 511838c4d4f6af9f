// A local fake of the Compute Engine REST API (v1), the routes Skydeck's GCP provider uses,
// served over plain http on 127.0.0.1 at compute.googleapis.com's paths for Skydeck's REST
// client (src/core/clouds/gcp/rest.ts); the IAM and Resource Manager routes of the autodown set-up share its port (iamRoutes.ts), and so
// do Cloud Storage's bucket IAM policies (bucketIam.ts).
import * as http from 'node:http';
import { LoopbackHttp } from '../loopbackHttp';
import { HttpError, alreadyExists, backendError, forbidden, notFound, parseFilter, unauthenticated } from './bodies';
import { GceModel, type FakeInstance, type FakeOperation, type Json } from './model';
import { insertInstance } from './insert';
import { iamRoute } from './iamRoutes';
import { FakeBucketIam } from './bucketIam';
import { listMachineTypes } from './machineTypes';
import { vmTokenCheck } from './metadata';
import { checkResume, checkStart, runResume } from './lifecycle';
import { runSetServiceAccount, runSetter, type Setter } from './setters';
import { pageOf, setPageSize } from './paging';
import { checkFirewall } from './firewallRules';
import { aggregatedInstances, instanceList, operationList, render, zoneList } from './lists';

export interface GcpFakeOptions {
  project?: string;
  zones?: string[];
  stepMs?: number;
  /** Every project's lists page at this size (paging.ts), so callers must follow nextPageToken. */
  pageSize?: number;
}

export class GcpFake extends LoopbackHttp {
  /** The default project's state; `addProject` adds others, each with its own state, as GCE keeps them apart. */
  readonly model: GceModel;
  readonly projects = new Map<string, GceModel>();
  private readonly stepMs: number;
  private readonly pageSize?: number;
  /** Reject requests with no bearer token (401), as the real API does. */
  requireAuth = false;
  /** Reject every mutation with 403 forbidden (an account lacking roles/compute.admin). */
  denyMutations = false;
  /** Zones the aggregated listing reports as UNREACHABLE (a partial answer, as GCP gives). */
  readonly unreachable = new Set<string>();
  /** Every GET answered (path and query), so tests can count the pages a caller asked for. */
  readonly reads: string[] = [];
  /** Cloud Storage buckets' IAM policies (bucketIam.ts), served at /storage/v1/b/{bucket}/iam. */
  readonly bucketIam = new FakeBucketIam(this.projects);

  constructor(o: GcpFakeOptions = {}) {
    super();
    this.stepMs = o.stepMs ?? 30;
    this.pageSize = o.pageSize;
    this.model = new GceModel(o.project ?? 'skydeck-test', o.zones ?? ['us-central1-a', 'us-central1-b', 'us-central1-c', 'europe-west4-a'], this.stepMs);
    this.projects.set(this.model.project, this.model);
    if (o.pageSize) setPageSize(this.model, o.pageSize);
  }

  /** Another project the caller can use (same zones), with nothing in it. */
  addProject(project: string): GceModel {
    const m = new GceModel(project, [...this.model.zones], this.stepMs);
    this.projects.set(project, m);
    if (this.pageSize) setPageSize(m, this.pageSize);
    return m;
  }

  override async stop(): Promise<void> {
    for (const m of this.projects.values()) m.close();
    await super.stop();
  }

  /** Fails the next `times` requests matching method and path with `error` (see bodies.ts). */
  failNext(method: string, path: RegExp, error: HttpError = backendError(), times = 1): void {
    this.model.httpFaults.push({ method, path, error, times });
  }

  protected async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const url = new URL(req.url ?? '/', 'http://x');
    const method = req.method ?? 'GET';
    let status = 200;
    let out: unknown;
    try {
      if (this.requireAuth && !/^Bearer \S+/.test(req.headers.authorization ?? '')) throw unauthenticated();
      const body = chunks.length ? (JSON.parse(Buffer.concat(chunks).toString('utf8')) as Json) : undefined;
      vmTokenCheck(this.model, req.headers.authorization, method, url.pathname, body);
      const fault = this.model.httpFaults.find((f) => f.method === method && f.path.test(url.pathname) && f.times > 0);
      if (fault) {
        fault.times--;
        throw fault.error;
      }
      if (method !== 'GET') this.model.calls.push({ method, path: url.pathname, body });
      else this.reads.push(url.pathname + url.search);
      out = await this.route(method, url, body);
    } catch (e) {
      if (!(e instanceof HttpError)) throw e;
      status = e.status;
      out = e.body;
    }
    res.writeHead(status, { 'content-type': 'application/json; charset=UTF-8' });
    res.end(JSON.stringify(out));
  }

  private async route(method: string, url: URL, body: Json | undefined): Promise<unknown> {
    if (url.pathname.startsWith('/v1/')) return iamRoute(this.projects, method, url, body);
    if (url.pathname.startsWith('/storage/v1/')) return this.bucketIam.route(method, url, body);
    // A project this fake does not hold answers 404 as GCE does for a project that does not exist (or is not visible).
    const named = /^\/compute\/v1\/projects\/([^/]+)\//.exec(url.pathname)?.[1];
    const m = named ? this.projects.get(named) : undefined;
    if (!m) throw notFound(url.pathname.replace(/^\/compute\/v1\//, '').split('/').slice(0, 2).join('/'));
    const prefix = `/compute/v1/projects/${m.project}/`;
    const parts = url.pathname.slice(prefix.length).split('/');
    // Collections and ids alternate after an optional scope word: zones/*/instances/*, global/firewalls/*.
    const scoped = parts[0] === 'global' || parts[0] === 'aggregated' ? 1 : 0;
    const key = `${method} ${parts.map((p, i) => (i >= scoped && (i - scoped) % 2 === 1 ? '*' : p)).join('/')}`;
    const filter = parseFilter(url.searchParams.get('filter'));
    if (method !== 'GET' && this.denyMutations && !/\/wait$/.test(url.pathname)) throw forbidden('compute.instances.create', url.pathname.slice(prefix.length));
    switch (key) {
      case 'GET zones':
        return zoneList(m, url.searchParams, filter);
      case 'GET aggregated/instances':
        return aggregatedInstances(m, url.searchParams, filter, this.unreachable);
      case 'GET zones/*/machineTypes': return listMachineTypes(m, this.zone(m, parts[1]), url.searchParams);
      case 'GET zones/*/instances':
        return instanceList(m, this.zone(m, parts[1]), url.searchParams, filter);
      case 'POST zones/*/instances':
        return insertInstance(m, this.zone(m, parts[1]), body ?? {});
      case 'GET zones/*/instances/*':
        return render(m, m.instance(this.zone(m, parts[1]), parts[3]));
      case 'DELETE zones/*/instances/*':
        return this.mutate(m, parts, 'delete', (i, op) => m.runDelete(i, op));
      case 'POST zones/*/instances/*/stop':
        return this.mutate(m, parts, 'stop', (i, op) => m.runStop(i, op));
      case 'POST zones/*/instances/*/start':
        checkStart(m.instance(this.zone(m, parts[1]), parts[3]));
        return this.mutate(m, parts, 'start', (i, op) => m.runStart(i, op));
      case 'POST zones/*/instances/*/resume':
        checkResume(m.instance(this.zone(m, parts[1]), parts[3]));
        return this.mutate(m, parts, 'resume', (i, op) => runResume(m, i, op));
      case 'POST zones/*/instances/*/setMetadata':
      case 'POST zones/*/instances/*/setLabels':
      case 'POST zones/*/instances/*/setTags':
        return runSetter(m, m.instance(this.zone(m, parts[1]), parts[3]), parts[4] as Setter, body ?? {});
      case 'POST zones/*/instances/*/setServiceAccount':
        return runSetServiceAccount(m, m.instance(this.zone(m, parts[1]), parts[3]), body ?? {});
      case 'GET zones/*/operations':
        return operationList(m, this.zone(m, parts[1]), url.searchParams, filter);
      case 'GET zones/*/operations/*':
      case 'GET global/operations/*':
        return this.op(m, parts[parts.length - 1]);
      case 'POST zones/*/operations/*/wait':
      case 'POST global/operations/*/wait':
        return this.waitOp(m, parts[parts.length - 2]);
      default:
        return this.firewalls(m, key, parts, body, url);
    }
  }

  private firewalls(m: GceModel, key: string, parts: string[], body: Json | undefined, url: URL): unknown {
    const name = parts[2];
    const done = (type: string, fn: () => void) => {
      const op = m.operation(type, m.url(`global/firewalls/${name ?? body?.name}`), undefined);
      m.later(2, () => {
        fn();
        m.finish(op);
      });
      return op;
    };
    const existing = () => {
      const f = m.firewalls.get(name);
      if (!f) throw notFound(`projects/${m.project}/global/firewalls/${name}`);
      return f;
    };
    switch (key) {
      case 'GET global/firewalls':
        return { kind: 'compute#firewallList', ...pageOf(m, [...m.firewalls.values()], url.searchParams, 'firewalls') };
      case 'POST global/firewalls': {
        const n = String(body?.name ?? '');
        if (m.firewalls.has(n)) throw alreadyExists(`projects/${m.project}/global/firewalls/${n}`);
        checkFirewall(body ?? {});
        return done('insert', () => m.firewalls.set(n, { ...body, kind: 'compute#firewall', id: m.id(), selfLink: m.url(`global/firewalls/${n}`) }));
      }
      case 'GET global/firewalls/*':
        return existing();
      case 'PATCH global/firewalls/*': {
        const f = existing();
        checkFirewall({ ...f, ...body });
        return done('patch', () => Object.assign(f, body));
      }
      // firewalls.update: every field is replaced, those the body leaves out included (PUT semantics).
      case 'PUT global/firewalls/*': {
        const f = existing();
        const next: Json = { ...body, name, kind: f.kind, id: f.id, selfLink: f.selfLink };
        checkFirewall(next);
        return done('update', () => m.firewalls.set(name, next));
      }
      case 'DELETE global/firewalls/*':
        existing();
        return done('delete', () => m.firewalls.delete(name));
      default:
        throw notFound(parts.join('/'));
    }
  }

  private zone(m: GceModel, z: string): string {
    if (!m.zones.includes(z)) throw notFound(`projects/${m.project}/zones/${z}`);
    return z;
  }

  private mutate(m: GceModel, parts: string[], type: string, run: (i: FakeInstance, op: FakeOperation) => void): FakeOperation {
    const i = m.instance(this.zone(m, parts[1]), parts[3]);
    const op = m.operation(type, m.url(`zones/${i.zone}/instances/${i.name}`), i.zone);
    run(i, op);
    return op;
  }

  private op(m: GceModel, name: string): FakeOperation {
    const op = m.operations.get(name);
    if (!op) throw notFound(`projects/${m.project}/zones/-/operations/${name}`);
    return op;
  }

  /** operations.wait: returns once DONE, or after a while with the current status (GCP: ~2 min). */
  private async waitOp(m: GceModel, name: string): Promise<FakeOperation> {
    const op = this.op(m, name);
    const until = Date.now() + m.stepMs * 5;
    while (op.status !== 'DONE' && Date.now() < until) await new Promise((r) => setTimeout(r, 5));
    return op;
  }
}
