import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { AgentClient } from '../../../src/core/jobs/agentClient';
import { agentSourceDir } from '../../../src/core/jobs/agentBundle';
import { ensureAgent } from '../../../src/core/jobs/bootstrap';
import { AGENT_PROTOCOL } from '../../../src/core/jobs/commands';
import { AgentVersionError } from '../../../src/core/jobs/protocolError';
import type { Transport } from '../../../src/core/transport';
import { createLocalTransport } from '../../../src/core/transport/localTransport';
import { agentEnv, cleanupBase } from '../agent/helpers';

// Protocol agreement at connect, with the real agent installed into a scratch base dir: an
// agent of another protocol (a copy of the shipped one with PROTOCOL changed, standing for
// another Skydeck version's agent) fails clearly in both directions, and one that another
// Skydeck slipped in between the install check and `serve` is replaced by ours.

/** A copy of the shipped agent that speaks `protocol`. */
function agentSpeaking(protocol: number, into: string): string {
  const dir = path.join(into, `agent-p${protocol}`);
  fs.cpSync(agentSourceDir(), dir, { recursive: true, filter: (p) => !p.includes('__pycache__') });
  const init = path.join(dir, 'skydeck_agent_lib', '__init__.py');
  fs.writeFileSync(init, fs.readFileSync(init, 'utf8').replace(/^PROTOCOL = \d+$/m, `PROTOCOL = ${protocol}`));
  return dir;
}

describe('agent protocol: version agreement at connect', function () {
  this.timeout(60000);
  let scratch = '';
  let base = '';
  let client: AgentClient | undefined;
  const logs: string[] = [];
  const local = () => createLocalTransport({ env: agentEnv() });

  beforeEach(() => {
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-protover-'));
    base = path.join(scratch, 'node');
    logs.length = 0;
  });
  afterEach(async () => {
    await client?.close();
    client = undefined;
    await cleanupBase(base);
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  /** Another Skydeck installs its agent between our hash check and our `serve` (`times` times). */
  function racing(inner: Transport, otherDir: string, times: number): Transport & { raced: number } {
    const t = Object.create(inner) as Transport & { raced: number };
    t.raced = 0;
    t.openChannel = async (argv, opts) => {
      if (t.raced < times) {
        t.raced++;
        assert.equal((await ensureAgent(inner, base, otherDir)).uploaded, true);
      }
      return inner.openChannel(argv, opts);
    };
    return t;
  }

  async function refused(other: number): Promise<AgentVersionError> {
    const t = racing(local(), agentSpeaking(other, scratch), Infinity);
    client = new AgentClient(t, { base, log: (m) => logs.push(m) });
    const e = await client.connect().then(() => undefined, (err: Error) => err);
    assert.ok(e instanceof AgentVersionError, String(e));
    assert.deepEqual([e.agentProtocol, e.clientProtocol, e.ownCopy, t.raced], [other, AGENT_PROTOCOL, false, 2]);
    assert.equal(logs.filter((m) => m.includes("installing this Skydeck's agent again")).length, 1, logs.join('\n'));
    return e;
  }

  it('an older agent that keeps coming back: refused after one reinstall; the agent is the older side, update the other Skydeck', async () => {
    const e = await refused(AGENT_PROTOCOL - 1);
    assert.match(e.message, new RegExp(`speaks protocol ${AGENT_PROTOCOL - 1}, older than this Skydeck's protocol ${AGENT_PROTOCOL}`));
    assert.match(e.message, /Update that Skydeck/);
  });

  it('a newer agent that keeps coming back: refused after one reinstall; this Skydeck is the older side and should be updated', async () => {
    const e = await refused(AGENT_PROTOCOL + 1);
    assert.match(e.message, new RegExp(`speaks protocol ${AGENT_PROTOCOL + 1}, newer than this Skydeck's protocol ${AGENT_PROTOCOL}: this Skydeck is the older side. Update Skydeck`));
  });

  for (const other of [AGENT_PROTOCOL - 1, AGENT_PROTOCOL + 1]) {
    it(`an agent of protocol ${other} put in place once after the install check is replaced by ours, and the channel works`, async () => {
      const inner = local();
      const t = racing(inner, agentSpeaking(other, scratch), 1);
      client = new AgentClient(t, { base, log: (m) => logs.push(m) });
      await client.connect();
      assert.equal(t.raced, 1);
      assert.ok(logs.some((m) => m.includes(`speaks protocol ${other}, this Skydeck ${AGENT_PROTOCOL}; installing this Skydeck's agent again`)), logs.join('\n'));
      assert.equal(logs.filter((m) => m.startsWith('installed the agent')).length, 2, 'installed first, and again after the race');
      assert.equal((await client.status()).running, 0);
      assert.equal((await ensureAgent(inner, base)).uploaded, false, "the node's agent is ours now");
    });
  }

  it('an agent directory of its own that speaks another protocol: refused as an inconsistent installation', async () => {
    client = new AgentClient(local(), { base, agentDir: agentSpeaking(AGENT_PROTOCOL + 1, scratch) });
    const e = await client.connect().then(() => undefined, (err: Error) => err);
    assert.ok(e instanceof AgentVersionError && e.ownCopy, String(e));
    assert.match(e.message, /that agent is the one it ships: this Skydeck installation is inconsistent\. Reinstall Skydeck\.$/);
  });
});
