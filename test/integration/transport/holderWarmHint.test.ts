// The holder's `warm` hint (src/cli/warmHint.ts → workerPool.ts → src/cli/prewarm.ts): a full
// exec run tells the holder what it ran, and the spare worker opens that cluster's agent
// channel while idle, so the next run through it does not. Against a real sshd.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { waitFor } from '../ops/helpers';
import { fastPathHarness, WORKER } from './fastPathHarness';
import { encodeFrame } from '../../../src/core/transport/holder/frames';
import { buildId, cliRequestOf } from '../../../src/core/transport/holder/cliRequest';

describe('transport/holder: a full run warms the holder\'s worker for the next one', function () {
  this.timeout(180_000);
  const f = fastPathHarness();

  /** pids of the node user's agent `serve` processes (the node is this machine). */
  const servePids = (): Set<string> => {
    const out = execFileSync('ps', ['-u', f.hostUser, '-o', 'pid=,args='], { encoding: 'utf8' });
    return new Set(out.split('\n').filter((l) => /skydeck_agent\.py .*serve/.test(l)).map((l) => l.trim().split(/\s+/)[0]));
  };
  const sendWarm = (req: object): Promise<void> => new Promise((resolve, reject) => {
    const s = net.connect(f.sock());
    s.on('connect', () => s.end(encodeFrame(req as never)));
    s.on('close', () => resolve());
    s.on('error', reject);
  });

  it('after a full run the worker opens the agent channel itself; the next run only submits (its job once)', async () => {
    // Both runs with the trace on: connections are kept only for exactly the same environment.
    const cold = await f.runCli(['exec', 'b', 'echo cold'], { SKYDECK_TRACE: '1' });
    assert.equal(cold.out, 'cold\n', cold.err);
    assert.match(cold.err, /fast path not used/);
    const atExit = servePids();
    const jobs = await f.jobCount();
    // A serve process the cold run did not have: the warm worker's (nothing else runs now).
    await waitFor('the worker to open the agent channel from the hint', async () => [...servePids()].some((p) => !atExit.has(p)), 60_000);
    assert.equal(await f.jobCount(), jobs, 'warming submits nothing');
    const next = await f.runCli(['exec', 'b', 'echo next'], { SKYDECK_TRACE: '1' });
    assert.equal(next.out, 'next\n', next.err);
    assert.match(next.err, WORKER);
    assert.match(next.err, /exec: submitted/, 'the trace is on');
    assert.doesNotMatch(next.err, /agent: ensure/, 'the run found the agent channel open');
    assert.equal(await f.jobCount(), jobs + 1);
  });

  it('a hint for a workspace without state makes none; a malformed hint is ignored and the holder still serves', async () => {
    await f.warmHolder();
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-warm-empty-'));
    const req = cliRequestOf('warm', ['exec', 'b', 'echo x'], buildId(path.join(path.dirname(f.cli), 'cli-main.js')));
    await sendWarm({ ...req, env: { ...req.env, SKYDECK_WORKSPACE: empty } });
    await sendWarm({ t: 'warm', argv: 'not a list', cwd: 'relative', env: [], umask: -1, tty: {}, build: 1 });
    await sendWarm({ ...req, argv: ['exec', '$(touch /tmp/x)', "b'; rm -rf ~"] });
    const r = await f.runCli(['exec', 'b', 'echo still']);
    assert.equal(r.out, 'still\n', r.err);
    assert.match(r.err, WORKER);
    assert.deepEqual(fs.readdirSync(empty), [], 'no state made for a hint');
    fs.rmSync(empty, { recursive: true, force: true });
  });
});
