import assert from 'node:assert/strict';
import type { AgentCommand } from '../../../src/core/jobs/commands';
import { AgentProtocolError } from '../../../src/core/jobs/protocolError';
import { RESULT_CHECKS } from '../../../src/core/jobs/protocolChecks';
import { AgentError, AgentRpc } from '../../../src/core/jobs/rpc';
import { field } from '../../../src/core/jobs/shape';
import { AgentClient } from '../../../src/core/jobs/agentClient';
import { COLUMNS, FakeServe, fakeNode, GOOD } from './protocolFixtures';

// Malformed answers, one broken field at a time, through AgentRpc over a fake serve channel:
// each must be an AgentProtocolError naming the command and the field path. Unknown extra
// fields are allowed on purpose (a newer agent may add some; this client ignores them).

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any
type Path = (string | number)[];

const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v));
const show = (p: Path) => p.reduce<string>((at, k) => field(at, k), '');
/** A value of another JSON kind than v, valid for no field that v is valid for. */
const wrongFor = (v: unknown): unknown =>
  v === null ? true : typeof v === 'number' ? 'x' : typeof v === 'string' ? 7 : typeof v === 'boolean' ? 'yes' : 7;

// Keys that may be absent: records (any key set is fine) and the optional fields.
const MAY_DROP = [/^counts\./, /accelerators\./, /^cluster\.(cluster_name|node_ips)$/];
// Walked separately: queue rows are checked per column, under the column's name.
const SEPARATE = /^(rows|columns)\b/;

function at(o: Json, p: Path): { parent: Json; key: string | number } {
  let parent = o;
  for (const k of p.slice(0, -1)) parent = parent[k];
  return { parent, key: p[p.length - 1] };
}

function* paths(v: unknown, p: Path = []): Generator<{ path: Path; value: unknown; inArray: boolean }> {
  if (v === null || typeof v !== 'object') return;
  for (const [k, child] of Object.entries(v)) {
    const here = [...p, Array.isArray(v) ? Number(k) : k];
    if (SEPARATE.test(show(here))) continue;
    yield { path: here, value: child, inArray: Array.isArray(v) };
    yield* paths(child, here);
  }
}

describe('agent protocol: malformed answers become AgentProtocolError naming command and field', () => {
  let next: unknown[] = [];
  let serve: FakeServe;
  let rpc: AgentRpc;
  beforeEach(() => {
    serve = new FakeServe((req) => next.map((l) => (typeof l === 'object' && l !== null && !Buffer.isBuffer(l) ? { id: req.id, ...l } : l)));
    rpc = new AgentRpc(serve, 'fake-host');
  });

  async function problem(cmd: AgentCommand, result: unknown): Promise<AgentProtocolError | undefined> {
    next = [{ ok: true, result }];
    try {
      await rpc.request(cmd, {} as never);
      return undefined;
    } catch (e) {
      assert.ok(e instanceof AgentProtocolError, `${cmd}: ${(e as Error).message}`);
      return e;
    }
  }

  async function expectBroken(cmd: AgentCommand, result: unknown, path: string, what: string): Promise<void> {
    const e = await problem(cmd, result);
    assert.ok(e, `${cmd}: ${what} at ${path} was accepted`);
    assert.equal(e.command, cmd);
    assert.ok(e.problem.startsWith(`${path}: `), `${what} at ${path}: got "${e.problem}"`);
    assert.ok(e.message.includes(`on fake-host`) && e.message.includes(`${cmd}: ${path}: `), e.message);
  }

  for (const cmd of Object.keys(GOOD) as AgentCommand[]) {
    it(`${cmd}: the well-formed answer passes; each dropped or mistyped field is named; extra fields pass`, async () => {
      assert.equal(await problem(cmd, GOOD[cmd]), undefined);
      let broken = 0;
      for (const { path, value, inArray } of paths(GOOD[cmd])) {
        const name = show(path);
        const wrong = clone(GOOD[cmd]) as Json;
        const w = at(wrong, path);
        w.parent[w.key] = wrongFor(value);
        await expectBroken(cmd, wrong, name, `${JSON.stringify(wrongFor(value))} for ${JSON.stringify(value)}`);
        broken++;
        if (inArray) continue;
        const dropped = clone(GOOD[cmd]) as Json;
        const d = at(dropped, path);
        delete d.parent[d.key];
        if (MAY_DROP.some((r) => r.test(name))) assert.equal(await problem(cmd, dropped), undefined, `dropping ${name}`);
        else await expectBroken(cmd, dropped, name, 'a missing field');
        broken++;
      }
      assert.ok(broken >= 2, `${cmd}: only ${broken} mutations`);
      const extra = clone(GOOD[cmd]) as Json;
      extra.from_a_newer_agent = { any: ['thing'] };
      for (const { value } of paths(extra)) {
        if (value && typeof value === 'object' && !Array.isArray(value) && !('L4' in value) && !('PENDING' in value)) (value as Json).newer = 'x';
      }
      assert.equal(await problem(cmd, extra), undefined);
    });
  }

  it('queue: a mistyped value is named by row and column; a missing column or short row is refused; extra columns pass', async () => {
    for (const [i, col] of COLUMNS.slice(0, 14).entries()) {
      for (const r of [0, 1]) {
        const q = clone(GOOD.queue) as Json;
        q.rows[r][i] = wrongFor(q.rows[r][i]);
        await expectBroken('queue', q, `rows[${r}].${col}`, 'a mistyped value');
      }
      const q = clone(GOOD.queue) as Json;
      q.columns.splice(i, 1);
      for (const row of q.rows) row.splice(i, 1);
      await expectBroken('queue', q, 'columns', `no ${col} column`);
    }
    const short = clone(GOOD.queue) as Json;
    short.rows[1].pop();
    await expectBroken('queue', short, 'rows[1]', 'a short row');
    const st = clone(GOOD.queue) as Json;
    st.rows[0][3] = 7;
    assert.match((await problem('queue', st))!.message, /queue: rows\[0\]\.status: expected one of INIT\|PENDING\|.*\|CANCELLED, got 7$/);
    const wider = clone(GOOD.queue) as Json;
    wider.columns.push('gpu_util');
    for (const row of wider.rows) row.push(0.5);
    assert.equal(await problem('queue', wider), undefined);
  });

  it('hello, log events, error answers and the ok flag are checked too; lines that are not objects are skipped', async () => {
    const bad = new AgentRpc(new FakeServe(() => [], { id: null, event: 'hello', version: '0.1.0', protocol: '1', pid: 1, base_dir: '/b' }), 'h');
    await assert.rejects(bad.hello, (e: Error) => e instanceof AgentProtocolError && e.command === 'hello' && e.problem.startsWith('protocol: expected an integer'));

    // A log header's bytes follow it raw: newlines and braces in them are data, never lines.
    const hi = Buffer.from('hi\n{"ok":true}\n');
    next = ['7', 'null', '[1]', { event: 'log', offset: 0, bytes: hi.length }, hi, { event: 'progress', pct: 5 }, { event: 'log', offset: -3, bytes: 3 }, Buffer.from('hi\n')];
    const chunks: string[] = [];
    const req = rpc.start('logs', { job_id: 1 }, (ev) => chunks.push(ev.data.toString()));
    await assert.rejects(req.done, (e: Error) => e instanceof AgentProtocolError && e.command === 'logs' && e.problem.startsWith('event.offset: expected an integer >= 0, got -3'));
    assert.deepEqual(chunks, [hi.toString()], 'the good chunk before the bad one was delivered, the unknown event skipped');
    assert.deepEqual(serve.requests.at(-1), { id: req.id + 1, cmd: 'unfollow', args: { request: req.id } }, 'the stream is ended on the agent too');

    next = [{ ok: false, error: { code: 5, message: 'x' } }];
    await assert.rejects(rpc.request('cancel', { all: true }), (e: Error) => e instanceof AgentProtocolError && e.problem === 'error.code: expected a string, got 5');
    next = [{ result: GOOD.status }];
    await assert.rejects(rpc.request('status', {}), (e: Error) => e instanceof AgentProtocolError && e.problem === 'ok: expected true or false, got nothing');
    next = [{ ok: false, error: { code: 'not_found', message: 'no such job: 7', details: { job_ids: [7] } } }];
    await assert.rejects(rpc.request('cancel', { job_ids: [7] }), (e: Error) => e instanceof AgentError && e.code === 'not_found');
    assert.ok(Object.keys(RESULT_CHECKS).length >= 10);
  });
});

describe('agent protocol: a malformed answer stops at the client, not later', () => {
  it('queue: the client refuses the answer with the field named; a later good answer is taken as usual', async () => {
    const rows: unknown[][] = [GOOD.queue.rows[0]];
    const serve = new FakeServe((req) => [{ id: req.id, ok: true, result: { ...GOOD.queue, full: true, rows } }]);
    const client = new AgentClient(fakeNode(serve));
    assert.deepEqual((await client.queue()).map((j) => [j.job_id, j.status]), [[17, 'RUNNING']]);
    rows[0] = [...GOOD.queue.rows[0]];
    rows[0][3] = 'DONE';
    await assert.rejects(client.queue(), (e: Error) =>
      e instanceof AgentProtocolError && e.message === 'the agent on fake-node sent a malformed answer: queue: ' +
        'rows[0].status: expected one of INIT|PENDING|SETTING_UP|RUNNING|FAILED_DRIVER|SUCCEEDED|FAILED|FAILED_SETUP|CANCELLED, got "DONE"');
    rows.length = 0;
    assert.deepEqual(await client.queue(), [], 'a later good answer is taken as usual');
    await client.close();
  });
});

describe('agent protocol: raw log bytes after their header', () => {
  /** A serve that answers a logs request with `wire`, cut into pieces of the given sizes. */
  class ChoppedServe extends FakeServe {
    constructor(wire: (id: number) => Buffer, sizes: () => number) {
      super(() => []);
      this.write = (b: Buffer | string) => {
        const req = JSON.parse(b.toString());
        this.requests.push(req);
        const all = wire(req.id);
        setImmediate(() => {
          for (let at = 0; at < all.length;) {
            const n = Math.max(1, sizes());
            this.sendRaw(all.subarray(at, at + n));
            at += n;
          }
        });
      };
    }
  }

  const framed = (id: number, chunks: Buffer[]): Buffer => {
    let offset = 0;
    const parts: Buffer[] = [];
    for (const c of chunks) {
      parts.push(Buffer.from(JSON.stringify({ id, event: 'log', offset, bytes: c.length }) + '\n'), c);
      offset += c.length;
    }
    parts.push(Buffer.from(JSON.stringify({ id, ok: true, result: { job_id: 1, offset, status: 'SUCCEEDED', exit_code: 0, reason: null, terminal: true } }) + '\n'));
    return Buffer.concat(parts);
  };

  it('arrive whole and in order however the channel cuts them (one byte, odd sizes, all at once)', async () => {
    // Bytes that look like protocol: newlines, JSON answers, a NUL, invalid UTF-8.
    const chunks = [Buffer.from('{"id":1,"ok":true}\n'), Buffer.from([0, 0xff, 0xfe, 10, 10]), Buffer.alloc(0), Buffer.alloc(70_000, 0x41)];
    for (const sizes of [() => 1, () => 7, () => 1 + Math.floor(Math.random() * 5000), () => 1e9]) {
      const rpc = new AgentRpc(new ChoppedServe((id) => framed(id, chunks), sizes), 'chopped');
      const got: Buffer[] = [];
      const final = await rpc.start('logs', { job_id: 1 }, (ev) => got.push(ev.data)).done;
      assert.equal(final.offset, 70_024);
      assert.deepEqual(Buffer.concat(got), Buffer.concat(chunks));
    }
  });

  it('a header whose length cannot be believed closes the channel, failing every request on it', async () => {
    for (const bytes of [-1, 'x', 1.5, 2 ** 40, null]) {
      const serve = new ChoppedServe((id) => Buffer.from(JSON.stringify({ id, event: 'log', offset: 0, bytes }) + '\nhi\n'), () => 1e9);
      const rpc = new AgentRpc(serve, 'liar');
      await assert.rejects(rpc.start('logs', { job_id: 1 }, () => undefined).done, (e: Error) => e instanceof AgentProtocolError && /event\.bytes: expected an integer from 0 to/.test(e.problem), String(bytes));
      assert.equal(rpc.closed, true);
      await assert.rejects(rpc.request('status', {}), /bytes/);
    }
  });
});
