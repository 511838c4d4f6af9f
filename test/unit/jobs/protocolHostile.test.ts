import assert from 'node:assert/strict';
import { AgentProtocolError } from '../../../src/core/jobs/protocolError';
import { AgentGoneError, AgentRpc } from '../../../src/core/jobs/rpc';
import { COLUMNS, FakeServe, GOOD, HELLO } from './protocolFixtures';

// An agent (or whatever answers on its channel) turned hostile: huge lines, deep nesting, a
// queue of a million rows, a hello with a nonsense protocol. The client must answer each with
// an error it can show (AgentProtocolError), hold a bounded amount, and never throw out of the
// channel's data handler (that would end the process).

function rpcAnswering(lines: (id: number) => (string | object)[], maxLine?: number): { rpc: AgentRpc; serve: FakeServe } {
  const serve = new FakeServe((req) => lines(req.id));
  return { rpc: new AgentRpc(serve, 'fake-host', maxLine), serve };
}

describe('agent protocol: hostile answers', () => {
  it('a 50 MB answer of the wrong shape is an AgentProtocolError; a 50 MB line of garbage is skipped and the next answer taken', async () => {
    const big = 'x'.repeat(50 * 1024 * 1024);
    const { rpc } = rpcAnswering((id) => [{ id, ok: true, result: { version: big } }]);
    await assert.rejects(rpc.request('status', {}), (e: Error) => e instanceof AgentProtocolError && /status: capacity: expected an object/.test(e.message));
    const g = rpcAnswering((id) => [big, { id, ok: true, result: GOOD.unfollow }]);
    assert.deepEqual(await g.rpc.request('unfollow', { request: 1 }), GOOD.unfollow);
  });

  it('a line longer than the limit fails every request on the channel with AgentProtocolError and closes it, whether it ends or not', async () => {
    for (const ending of ['\n', '']) {
      const { rpc, serve } = rpcAnswering(() => [], 1024);
      await rpc.hello;
      const a = rpc.request('status', {});
      const b = rpc.request('queue', {} as never);
      // Sent in pieces, as a pipe delivers it: the limit is on the line, not on one chunk.
      const raw = (serve as unknown as { data: (b: Buffer) => void }).data; // no newline added
      for (let i = 0; i < 4; i++) raw(Buffer.from('y'.repeat(400) + (i === 3 ? ending : '')));
      for (const p of [a, b]) await assert.rejects(p, (e: Error) => e instanceof AgentProtocolError && e.problem === 'a line longer than 1024 bytes');
      assert.ok(rpc.closed);
      await assert.rejects(rpc.request('status', {}), AgentGoneError);
    }
  });

  it('a line over the limit before the hello fails the hello', async () => {
    const serve = new FakeServe(() => [], 'h'.repeat(2048));
    await assert.rejects(new AgentRpc(serve, 'fake-host', 1024).hello, (e: Error) => e instanceof AgentProtocolError && /longer than 1024/.test(e.message));
  });

  it('an answer nested a million deep is refused by shape, not by a stack overflow', async () => {
    const deep = (id: number) => `{"id":${id},"ok":true,"result":${'['.repeat(1_000_000)}${']'.repeat(1_000_000)}}`;
    const { rpc } = rpcAnswering((id) => [deep(id)]);
    await assert.rejects(rpc.request('queue', {} as never), (e: Error) => e instanceof AgentProtocolError && /queue: result: expected an object, got a list of 1/.test(e.message));
    const obj = (id: number) => `{"id":${id},"ok":true,"result":{"capacity":${'{"a":'.repeat(200_000)}1${'}'.repeat(200_000)}}}`;
    const o = rpcAnswering((id) => [obj(id)]);
    await assert.rejects(o.rpc.request('status', {}), (e: Error) => e instanceof AgentProtocolError && /status: capacity\.cpus: expected a number, got nothing/.test(e.message));
  });

  it('a queue of a million rows is taken whole; one bad value in its last row is named by row and column', async function () {
    this.timeout(120_000); // a million rows parsed and checked: seconds alone, much more on a loaded 2-core machine
    const row = GOOD.queue.rows[1];
    const rows = Array.from({ length: 1_000_000 }, (_, i) => [i + 1, ...row.slice(1)]);
    const ans = { ...GOOD.queue, columns: COLUMNS, rows };
    const { rpc } = rpcAnswering((id) => [{ id, ok: true, result: ans }]);
    const q = await rpc.request('queue', {} as never);
    assert.equal(q.rows.length, 1_000_000);
    rows[999_999][0] = 0;
    await assert.rejects(rpc.request('queue', {} as never), (e: Error) => e instanceof AgentProtocolError && e.problem === 'rows[999999].job_id: expected an integer >= 1, got 0');
  });

  for (const protocol of ['1', -1, 1.5, 2 ** 53, null]) {
    it(`a hello whose protocol is ${JSON.stringify(protocol)} is an AgentProtocolError`, async () => {
      const rpc = new AgentRpc(new FakeServe(() => [], { ...HELLO, protocol }), 'h');
      await assert.rejects(rpc.hello, (e: Error) => e instanceof AgentProtocolError && e.command === 'hello' && /^protocol: expected an integer >= 0/.test(e.problem));
    });
  }
});
