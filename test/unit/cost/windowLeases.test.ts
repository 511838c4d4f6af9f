// Which Skydeck windows are open: a lease counts while its process lives (pid + start time) and
// renews; a crashed window's file, a reused pid, a forged or broken file never count.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { checkLease, LEASE_STALE_MS, otherWindows, ownLease, removeLease, sweepDead, windowsDir, writeLease, type WindowLease } from '../../../src/core/cost';
import { processStart } from '../../../src/core/state/atomicWrite';

const home = () => fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-windows-'));
const children: ChildProcess[] = [];

function sleeper(exe = 'sleep'): ChildProcess {
  const c = spawn(exe, ['300'], { stdio: 'ignore' });
  children.push(c);
  return c;
}

async function gone(c: ChildProcess): Promise<void> {
  if (c.exitCode !== null || c.signalCode !== null) return;
  await new Promise<void>((r) => {
    c.once('exit', () => r());
    c.kill('SIGKILL');
  });
}

function leaseOf(pid: number, now: number, over: Partial<WindowLease> = {}): WindowLease {
  const procStart = processStart(pid);
  return { version: 1, pid, ...(procStart ? { procStart } : {}), hostname: os.hostname(), startedAt: now, renewedAt: now, ...over };
}

describe('cost: the leases of open windows', () => {
  after(async () => {
    for (const c of children) await gone(c);
  });

  it('another live window counts; this one does not; a killed one stops counting and its file is swept', async () => {
    const h = home();
    const now = Date.now();
    const self = ownLease(now);
    writeLease(self, h);
    const other = sleeper();
    writeLease(leaseOf(other.pid!, now), h);
    assert.deepEqual(otherWindows(self, now, h).live.map((l) => l.pid), [other.pid]);
    assert.deepEqual(otherWindows(undefined, now, h).live.map((l) => l.pid).sort(), [process.pid, other.pid].sort());

    await gone(other); // kill -9: no deactivate, the file stays
    const read = otherWindows(self, now, h);
    assert.deepEqual(read.live, []);
    assert.deepEqual(read.dead.map((d) => d.why), ['its process is gone']);
    sweepDead(read);
    assert.deepEqual(fs.readdirSync(windowsDir(h)), [`${self.pid}-${self.startedAt}.json`]);
    removeLease(self, h);
    assert.deepEqual(fs.readdirSync(windowsDir(h)), []);
  });

  it('a reused pid (same pid, another start time) does not count', () => {
    const h = home();
    const now = Date.now();
    const procStart = processStart(process.pid);
    assert.ok(procStart, 'this test needs /proc (Linux)');
    writeLease(leaseOf(process.pid, now, { procStart: String(Number(procStart) + 1), startedAt: now - 5 }), h);
    assert.deepEqual(otherWindows(undefined, now, h).dead.map((d) => d.why), ['its process is gone']);
  });

  it('a live process whose lease stopped renewing does not count, and is not swept (it renews its own)', () => {
    const h = home();
    const now = Date.now();
    const c = sleeper();
    writeLease(leaseOf(c.pid!, now - LEASE_STALE_MS - 1), h);
    const read = otherWindows(undefined, now, h);
    assert.deepEqual(read.live, []);
    assert.deepEqual(read.dead.map((d) => d.why), ['stale']);
    sweepDead(read);
    assert.equal(fs.readdirSync(windowsDir(h)).length, 1);
  });

  it('another host\'s lease (a shared home) counts by its renewal alone', () => {
    const h = home();
    const now = Date.now();
    writeLease({ version: 1, pid: 999_999, hostname: `not-${os.hostname()}`, startedAt: 1, renewedAt: now }, h);
    assert.equal(otherWindows(undefined, now, h).live.length, 1);
    assert.equal(otherWindows(undefined, now + LEASE_STALE_MS + 1, h).live.length, 0);
    // Renewed "in the future" (forged, or a clock far ahead): never counts, or it would for ever.
    writeLease({ version: 1, pid: 999_998, hostname: `not-${os.hostname()}`, startedAt: 2, renewedAt: now + LEASE_STALE_MS + 1 }, h);
    assert.deepEqual(otherWindows(undefined, now, h).dead.map((d) => d.why), ['renewed in the future']);
  });

  it('the start time is read after the last ")": a process named "a) 1 2 (c" is still checked right', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-comm-'));
    const exe = path.join(dir, 'a) 1 2 (c');
    fs.copyFileSync(fs.realpathSync('/bin/sleep'), exe);
    fs.chmodSync(exe, 0o755);
    const c = sleeper(exe);
    await new Promise((r) => c.once('spawn', r));
    const plain = sleeper();
    await new Promise((r) => plain.once('spawn', r));
    const start = processStart(c.pid!);
    assert.match(start ?? '', /^[0-9]+$/);
    // A field read from the wrong place (split at the name's spaces) is a small number like a
    // priority or a thread count; the start is boot-relative ticks, the same as a sibling's
    // started just after it (within a minute at 100 ticks/s).
    assert.ok(Math.abs(Number(start) - Number(processStart(plain.pid!))) < 6000, `${start} vs ${processStart(plain.pid!)}`);
    const h = home();
    writeLease(leaseOf(c.pid!, Date.now()), h);
    assert.equal(otherWindows(undefined, Date.now(), h).live.length, 1);
  });

  it('forged and broken files are refused, named, never counted; temporary files are ignored', () => {
    const h = home();
    const dir = windowsDir(h);
    fs.mkdirSync(dir, { recursive: true });
    const now = Date.now();
    const good = leaseOf(process.pid, now);
    const put = (name: string, text: string) => fs.writeFileSync(path.join(dir, name), text);
    put('1-1.json', 'not json');
    put('2-2.json', JSON.stringify({ ...good, pid: 2, startedAt: 2, version: 2 }));
    put('3-3.json', JSON.stringify({ ...good, startedAt: 3 })); // its name is not its pid
    put('4-4.json', JSON.stringify({ ...good, pid: 4, startedAt: 4, procStart: '$(reboot)' }));
    put('5-5.json', 'x'.repeat(10_000));
    put('0-6.json', JSON.stringify({ ...good, pid: 0, startedAt: 6 }));
    fs.symlinkSync(`/proc/${process.pid}/status`, path.join(dir, '7-7.json'));
    put(`${process.pid}-${now}.json.abc.tmp`, JSON.stringify(good));
    put('notes.txt', 'hello');
    const read = otherWindows(undefined, now, h);
    assert.deepEqual(read.live, []);
    assert.deepEqual(Object.fromEntries(read.dead.map((d) => [path.basename(d.file), d.why])), {
      '1-1.json': read.dead.find((d) => d.file.endsWith('1-1.json'))!.why, // JSON.parse's own words
      '2-2.json': 'unknown version', '3-3.json': 'its name is not its pid and start', '4-4.json': 'bad process start',
      '5-5.json': 'too large', '0-6.json': 'bad pid', '7-7.json': 'not a regular file',
    });
    assert.match(read.dead.find((d) => d.file.endsWith('1-1.json'))!.why, /JSON/);
    sweepDead(read);
    assert.deepEqual(fs.readdirSync(dir).sort(), [`${process.pid}-${now}.json.abc.tmp`, 'notes.txt']);
    assert.equal(typeof checkLease({ ...good, renewedAt: -1 }), 'string');
    assert.equal(typeof checkLease({ ...good, hostname: 'h'.repeat(300) }), 'string');
  });

  it('no directory yet: no other window', () => {
    assert.deepEqual(otherWindows(undefined, Date.now(), home()), { live: [], dead: [] });
  });
});
