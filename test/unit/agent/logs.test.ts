import assert from 'node:assert/strict';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { AgentFixture, waitStatus } from './helpers';

/** ~50 MB of progress-bar style output: \r updates, newlines, invalid UTF-8, NULs, random bytes. */
function makeFixture(file: string, bytes: number): Buffer {
  const junk = Buffer.from([0xff, 0xfe, 0xc3, 0x28, 0xe2, 0x82, 0x00, 0x80]);
  const unit: Buffer[] = [];
  for (let i = 0; i < 600; i++) {
    unit.push(Buffer.from(`step ${i} ${'#'.repeat(i % 60)}\r`));
    if (i % 7 === 0) unit.push(junk);
    if (i % 5 === 0) unit.push(Buffer.from(' ✓ done\n'));
  }
  const block = Buffer.concat(unit);
  const parts: Buffer[] = [];
  let n = 0;
  // Every block is numbered and carries fresh random bytes, so a misplaced chunk shows.
  for (let b = 0; n < bytes; b++) {
    const head = Buffer.from(`[block ${b}]\r`);
    const rnd = crypto.randomBytes(512);
    parts.push(head, block, rnd);
    n += head.length + block.length + rnd.length;
  }
  const buf = Buffer.concat(parts).subarray(0, bytes);
  fs.writeFileSync(file, buf);
  return buf;
}

describe('agent logs', function () {
  this.timeout(60000);
  const fx = new AgentFixture();
  beforeEach(() => fx.setup());
  afterEach(() => fx.cleanup());

  it('follow of a 50 MB log with \\r and invalid UTF-8 is byte-exact, from 0 and from an offset, and ends with the status', async () => {
    const fixture = path.join(fx.base, 'fixture.bin');
    const expected = makeFixture(fixture, 50 * 1024 * 1024);
    const c = fx.serve();
    await c.hello;
    // Written in pieces over a moment, so the follower sees a growing file.
    const run = `head -c 1000000 '${fixture}'; sleep 0.3; tail -c +1000001 '${fixture}'; exit 3`;
    const { job_id } = await c.call('submit', { run });
    const live = await c.logs({ job_id, follow: true });
    assert.equal(live.final.ok, true);
    assert.equal(live.final.result.status, 'FAILED');
    assert.equal(live.final.result.exit_code, 3);
    assert.equal(live.final.result.terminal, true);
    assert.equal(live.final.result.offset, expected.length);
    assert.equal(live.data.length, expected.length);
    assert.ok(live.data.equals(expected), 'live follow is byte-exact');
    let off = 0;
    for (const ch of live.chunks) {
      assert.equal(ch.offset, off);
      off += ch.length;
    }
    // A reconnecting follower resumes exactly where it stopped.
    const from = expected.length - 3_333_333;
    const resumed = await c.logs({ job_id, follow: true, offset: from });
    assert.ok(resumed.data.equals(expected.subarray(from)), 'resumed follow is byte-exact');
    assert.equal(resumed.final.result.offset, expected.length);
    assert.equal(resumed.final.result.status, 'FAILED');
    // CLI: raw bytes on stdout, the final status line on stderr.
    const cli = await fx.run(['logs', String(job_id), '--offset', String(from), '--follow']);
    assert.equal(cli.code, 0);
    assert.ok(cli.stdout.equals(expected.subarray(from)), 'CLI output is byte-exact');
    const status = JSON.parse(cli.stderr.trim().split('\n').pop()!);
    assert.equal(status.result.status, 'FAILED');
    assert.equal(status.result.offset, expected.length);
  });

  it('CLI follow streams a running job and ends at its final status; offsets past the end give nothing', async () => {
    const c = fx.serve();
    const { job_id } = await c.call('submit', {
      run: 'for i in 1 2 3 4 5; do printf "tick %s\\r" $i; sleep 0.1; done; printf "\\ndone\\n"',
    });
    const r = await fx.run(['logs', String(job_id), '--follow']);
    assert.equal(r.code, 0);
    assert.equal(r.stdout.toString(), 'tick 1\rtick 2\rtick 3\rtick 4\rtick 5\r\ndone\n');
    const final = JSON.parse(r.stderr.trim());
    assert.equal(final.ok, true);
    assert.equal(final.result.status, 'SUCCEEDED');
    assert.equal(final.result.exit_code, 0);
    await waitStatus(c, job_id, 'SUCCEEDED');
    const past = await fx.run(['logs', String(job_id), '--offset', '100000']);
    assert.equal(past.code, 0);
    assert.equal(past.stdout.length, 0);
    const none = await fx.run(['logs', '77']);
    assert.equal(none.code, 1);
    assert.equal(JSON.parse(none.stderr).error.code, 'not_found');
  });

  it('following a pending job waits for it to start', async () => {
    const c = fx.serve();
    await c.call('configure', { capacity: { cpus: 1 } });
    const gate = path.join(fx.base, 'gate');
    const a = (await c.call('submit', { run: `while [ ! -e '${gate}' ]; do sleep 0.05; done`, resources: { cpus: 1 } })).job_id;
    const b = (await c.call('submit', { run: 'echo second', resources: { cpus: 1 } })).job_id;
    const f = c.logs({ job_id: b, follow: true });
    await new Promise((r) => setTimeout(r, 300));
    assert.equal((await waitStatus(c, b, 'PENDING')).status, 'PENDING');
    fs.writeFileSync(gate, '');
    await waitStatus(c, a, 'SUCCEEDED');
    const res = await f;
    assert.equal(res.data.toString(), 'second\n');
    assert.equal(res.final.result.status, 'SUCCEEDED');
  });
});
