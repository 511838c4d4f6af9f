import assert from 'node:assert/strict';
import { openAgreed } from '../../../src/core/jobs/handshake';
import { AgentGoneError } from '../../../src/core/jobs/rpc';
import { FakeServe, fakeNode, HELLO } from './protocolFixtures';

// An agent that starts but never greets must not hold its caller forever: the handshake
// gives up with an error that says so, and closes the channel it opened.

/** A serve channel whose agent never says hello. */
class SilentServe extends FakeServe {
  closedCount = 0;
  override onData(): void {}
  override close(): void {
    this.closedCount++;
    super.close();
  }
}

describe('agent handshake: a time limit on hello', () => {
  it('an agent that never greets: AgentGoneError naming the wait, and the channel is closed', async () => {
    const serve = new SilentServe(() => []);
    await assert.rejects(openAgreed(fakeNode(serve), { helloTimeoutMs: 200 }), (e: unknown) => {
      assert.ok(e instanceof AgentGoneError, String(e));
      assert.match((e as Error).message, /sent no hello within 200 ms/);
      return true;
    });
    assert.equal(serve.closedCount, 1);
  });

  it('an agent that greets in time is used as before', async () => {
    const serve = new FakeServe(() => [], HELLO);
    const { rpc } = await openAgreed(fakeNode(serve), { helloTimeoutMs: 5000 });
    assert.equal((await rpc.hello).protocol, HELLO.protocol);
    rpc.close();
  });
});
