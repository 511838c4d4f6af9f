import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { LogSession, type LogSessionOptions } from '../../../src/ui/logs/logSession';
import type { HostMessage } from '../../../src/ui/logs/protocol';
import type { LogFinal } from '../../../src/ui/logs/logSource';
import { FakeSource, tick } from './fakeSource';

type Append = Extract<HostMessage, { type: 'append' }>;

describe('LogSession', () => {
  let dir: string;
  let sessions: LogSession[];
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'session-test-'));
    sessions = [];
  });
  afterEach(() => {
    for (const s of sessions) s.dispose();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  function open(opts: LogSessionOptions = {}) {
    const source = new FakeSource();
    const posted: HostMessage[] = [];
    let saves = 0;
    const session = new LogSession({ cluster: 'c1', jobId: 7, name: 'train' }, source, (m) => posted.push(m), () => saves++, {
      spoolDir: dir,
      pump: { batchMs: 1, batchBytes: 64 * 1024, windowBytes: 256 * 1024 },
      ...opts,
    });
    sessions.push(session);
    session.start();
    /** The page's side: acks every append and collects its bytes. */
    const page = {
      bytes: [] as Buffer[],
      ackAll() {
        for (const m of posted.splice(0)) {
          if (m.type === 'reset') page.bytes = [];
          if (m.type !== 'append') continue;
          page.bytes.push(Buffer.from(m.data, 'base64'));
          session.handle({ type: 'ack', session: m.session, offset: m.offset + Buffer.from(m.data, 'base64').length });
        }
      },
      text: () => Buffer.concat(page.bytes).toString(),
    };
    return { source, posted, session, page, saves: () => saves };
  }

  it('follows from byte 0 and answers ready with reset, status and connection', () => {
    const { source, posted, session } = open();
    assert.equal(source.follows[0].from, 0);
    session.handle({ type: 'ready' });
    assert.deepEqual(posted.map((m) => m.type), ['connection', 'reset', 'status', 'connection']);
    assert.deepEqual(posted[1], { type: 'reset', session: 1, key: { cluster: 'c1', jobId: 7, name: 'train' }, from: 0, skipped: 0 });
  });

  it('streams output to the page, and replays the backlog to a reloaded page', async () => {
    const { source, posted, session, page } = open();
    session.handle({ type: 'ready' });
    source.push('\x1b[31mred\x1b[0m\n');
    source.push('50%\r100%\n');
    await tick(10);
    page.ackAll();
    assert.equal(page.text(), '\x1b[31mred\x1b[0m\n50%\r100%\n');
    // The webview was hidden and shown again: a fresh page asks for everything.
    session.handle({ type: 'ready' });
    const reset = posted.find((m) => m.type === 'reset');
    assert.equal(reset && reset.type === 'reset' && reset.session, 2);
    page.ackAll();
    assert.equal(page.text(), '\x1b[31mred\x1b[0m\n50%\r100%\n');
  });

  it('delivers 20 MB of random bytes intact under flow control', async function () {
    this.timeout(20_000); // ~1 s alone; more on a busy CI machine
    const { source, session, page } = open();
    session.handle({ type: 'ready' });
    const all: Buffer[] = [];
    for (let i = 0; i < 320; i++) {
      const b = Buffer.alloc(64 * 1024);
      for (let j = 0; j < b.length; j += 997) b[j] = (i * 31 + j) & 0xff;
      all.push(b);
      source.push(b);
      page.ackAll();
    }
    for (let i = 0; i < 200 && session.acknowledged < session.received; i++) {
      await tick(2);
      page.ackAll();
    }
    assert.equal(session.acknowledged, 20 * 1024 * 1024);
    assert.ok(Buffer.concat(page.bytes).equals(Buffer.concat(all)));
  });

  it('sends a reloaded page only the newest bytes, from a line start', () => {
    const { source, posted, session } = open({ replayTailBytes: 100 });
    const lines = Array.from({ length: 50 }, (_, i) => `line ${String(i).padStart(3, '0')}\n`).join(''); // 9 bytes each
    source.push(lines);
    session.handle({ type: 'ready' });
    const reset = posted.find((m) => m.type === 'reset') as Extract<HostMessage, { type: 'reset' }>;
    assert.equal(reset.from % 9, 0);
    assert.ok(reset.from >= 450 - 100 && reset.from < 450 - 90, String(reset.from));
    assert.equal(reset.skipped, reset.from);
    const first = posted.find((m): m is Append => m.type === 'append')!;
    assert.equal(first.offset, reset.from);
    assert.ok(Buffer.from(first.data, 'base64').toString().startsWith('line 0'));
  });

  it('replays to a reloaded page only the lines its terminal holds (it says how many)', () => {
    const { source, posted, session } = open();
    source.push(Array.from({ length: 50 }, (_, i) => `line ${String(i).padStart(3, '0')}\n`).join(''));
    session.handle({ type: 'ready', lines: 10 });
    const reset = posted.find((m) => m.type === 'reset') as Extract<HostMessage, { type: 'reset' }>;
    // The 9 newest lines plus the empty one after the final newline.
    assert.equal(reset.from, 41 * 9);
    assert.equal(reset.skipped, reset.from);
    const first = posted.find((m): m is Append => m.type === 'append')!;
    assert.ok(Buffer.from(first.data, 'base64').toString().startsWith('line 041\n'));
  });

  it('moves a following page that fell far behind on to the newest lines; Save keeps every byte', async () => {
    const { source, posted, session } = open({ catchUpBytes: 4096, pump: { batchMs: 1, batchBytes: 512, windowBytes: 1024 } });
    session.handle({ type: 'ready', lines: 10 });
    const line = (i: number) => `line ${String(i).padStart(5, '0')}\n`; // 11 bytes
    let all = '';
    for (let i = 0; i < 2000; i++) {
      all += line(i);
      source.push(line(i));
    }
    // The window is full and the page has not answered: nothing more is sent, nothing skipped yet.
    assert.equal(posted.filter((m) => m.type === 'reset').length, 1);
    // Its first ack, still following, finds 21 KB waiting behind it: it is moved on.
    const first = posted.find((m): m is Append => m.type === 'append')!;
    session.handle({ type: 'ack', session: first.session, offset: first.offset + Buffer.from(first.data, 'base64').length, following: true });
    const resets = posted.filter((m): m is Extract<HostMessage, { type: 'reset' }> => m.type === 'reset');
    assert.equal(resets.length, 2);
    assert.equal(resets[1].from, all.length - 9 * 11, 'the 9 newest lines (+ the empty one after the last newline)');
    assert.equal(resets[1].skipped, resets[1].from);
    const appends = posted.filter((m): m is Append => m.type === 'append' && m.session === resets[1].session);
    assert.equal(appends[0].offset, resets[1].from);
    // A late ack from the replaced page changes nothing.
    session.handle({ type: 'ack', session: first.session, offset: 1024, following: true });
    assert.equal(posted.filter((m) => m.type === 'reset').length, 2);
    const out = path.join(dir, 'saved.log');
    assert.equal(await session.copyTo(out), all.length);
    assert.equal(fs.readFileSync(out, 'utf8'), all);
  });

  it('never moves a paused page on: it gets every byte', async () => {
    const { source, posted, session } = open({ catchUpBytes: 4096, pump: { batchMs: 1, batchBytes: 512, windowBytes: 1024 } });
    session.handle({ type: 'ready', lines: 10 });
    source.push('x\n');
    await tick(5);
    const first = posted.find((m): m is Append => m.type === 'append')!;
    session.handle({ type: 'ack', session: first.session, offset: 2, following: false });
    for (let i = 0; i < 2000; i++) source.push(`line ${String(i).padStart(5, '0')}\n`);
    session.handle({ type: 'ack', session: first.session, offset: 2, following: false });
    assert.equal(posted.filter((m) => m.type === 'reset').length, 1);
    // Following again: the next ack moves it on.
    session.handle({ type: 'ack', session: first.session, offset: 2, following: true });
    assert.equal(posted.filter((m) => m.type === 'reset').length, 2);
  });

  it('shows reconnecting and clears it when output or the connection comes back', () => {
    const { source, posted, session } = open();
    session.handle({ type: 'ready' });
    posted.length = 0;
    source.hooks.onReconnect(new Error('ECONNRESET'));
    assert.deepEqual(posted.pop(), { type: 'connection', connection: { state: 'reconnecting', message: 'ECONNRESET' } });
    source.push('more\n');
    assert.deepEqual(posted.pop(), { type: 'connection', connection: { state: 'live' } });
    source.hooks.onReconnect(new Error('again'));
    source.hooks.onResumed();
    assert.deepEqual(session.view.connection, { state: 'live' });
  });

  it('merges status updates and finishes with the final state', async () => {
    const { source, posted, session } = open();
    source.hooks.onStatus({ status: 'RUNNING', startedAt: 1000 });
    source.hooks.onStatus({ status: 'RUNNING', exitCode: null });
    assert.deepEqual(session.view.status, { status: 'RUNNING', exitCode: null, reason: null, startedAt: 1000, endedAt: null, final: false });
    source.hooks.onStatus({ status: 'FAILED', endedAt: 1065 });
    source.end({ status: 'FAILED', exit_code: 3, reason: 'user code exited 3' });
    await session.following;
    assert.deepEqual(session.view.status, { status: 'FAILED', exitCode: 3, reason: 'user code exited 3', startedAt: 1000, endedAt: 1065, final: true });
    assert.deepEqual(session.view.connection, { state: 'ended' });
    assert.deepEqual(posted.slice(-2).map((m) => m.type), ['status', 'connection']);
  });

  it('issue 19: tells the window the job ended once, when the follow ends with it; never for a follow that stopped', async () => {
    const ended: LogFinal[] = [];
    const a = open({ onEnded: (f) => ended.push(f) });
    a.source.end({ status: 'FAILED', exit_code: 1, reason: null });
    await a.session.following;
    assert.deepEqual(ended.slice(), [{ status: 'FAILED', exit_code: 1, reason: null }]);
    const b = open({ onEnded: (f) => ended.push(f) });
    b.source.fail(new Error('agent gone'));
    await b.session.following;
    const c = open({ onEnded: (f) => ended.push(f) });
    c.session.dispose();
    c.source.end({ status: 'SUCCEEDED', exit_code: 0, reason: null });
    await c.session.following;
    assert.equal(ended.length, 1, 'a failed or disposed follow says nothing about the job');
  });

  it('issue 19: tells each new page the node workdir when known, and passes traceback clicks to the host', () => {
    const opened: [string, number][] = [];
    const { posted, session } = open({ sourceRoot: () => '/home/sky/sky_workdir', onOpenSource: (p, l) => opened.push([p, l]) });
    session.handle({ type: 'ready', lines: 100 });
    const i = posted.findIndex((m) => m.type === 'reset');
    assert.deepEqual(posted[i + 1], { type: 'sourceRoot', nodeDir: '/home/sky/sky_workdir' });
    session.handle({ type: 'openSource', path: '/home/sky/sky_workdir/a.py', line: 4 });
    session.handle({ type: 'openSource', path: 'relative.py', line: 4 });
    assert.deepEqual(opened, [['/home/sky/sky_workdir/a.py', 4]]);
    const bare = open();
    bare.session.handle({ type: 'ready' });
    assert.equal(bare.posted.some((m) => m.type === 'sourceRoot'), false, 'no workdir known: no links offered');
  });

  it('tells the page a multi-node job\'s rank count, and asks for another rank\'s panel only for a real rank', () => {
    const asked: number[] = [];
    const { source, posted, session } = open({ onOpenRank: (r) => asked.push(r) });
    session.handle({ type: 'openRank', rank: 1 });
    assert.deepEqual(asked, [], 'no rank count known yet: a single-node job');
    source.hooks.onStatus({ status: 'RUNNING', numNodes: 3 });
    source.hooks.onStatus({ status: 'RUNNING' });
    assert.equal((posted.filter((m) => m.type === 'status').pop() as Extract<HostMessage, { type: 'status' }>).status.ranks, 3);
    for (const rank of [2, 3, 0]) session.handle({ type: 'openRank', rank });
    assert.deepEqual(asked, [2, 0]);
  });

  it('offers retry after an unrecoverable error and resumes at the received offset', async () => {
    const { source, session } = open();
    source.push('abc');
    source.fail(new Error('host key changed'));
    await session.following;
    assert.deepEqual(session.view.connection, { state: 'stopped', message: 'host key changed' });
    session.handle({ type: 'retry' });
    assert.equal(source.follows.length, 2);
    assert.equal(source.follows[1].from, 3);
    assert.deepEqual(session.view.connection, { state: 'live' });
  });

  it('drops overlapping bytes a source sends twice', () => {
    const { source, session } = open();
    source.push('hello ');
    source.push('o world', 4);
    assert.equal(session.readAll().toString(), 'hello world');
  });

  it('forwards save requests and writes the bytes received', async () => {
    const { source, session, saves } = open();
    source.push(Buffer.from([0, 1, 2, 255, 0x1b]));
    session.handle({ type: 'save' });
    assert.equal(saves(), 1);
    const out = path.join(dir, 'out.log');
    assert.equal(await session.copyTo(out), 5);
    assert.deepEqual([...fs.readFileSync(out)], [0, 1, 2, 255, 0x1b]);
  });

  it('aborts the follow on dispose and ignores anything after', async () => {
    const { source, posted, session } = open();
    const signal = source.hooks.signal;
    session.dispose();
    assert.equal(signal.aborted, true);
    posted.length = 0;
    source.hooks.onStatus({ status: 'RUNNING' });
    session.handle({ type: 'ready' });
    await tick(5);
    assert.deepEqual(posted, []);
    assert.deepEqual(fs.readdirSync(dir), [], 'spool removed');
  });

  it('stops sending while the page is gone and replays when it is back', async () => {
    const { source, posted, session, page } = open();
    session.handle({ type: 'ready' });
    session.pageGone(); // panel hidden: VS Code tore the page down
    posted.length = 0;
    source.push('while hidden\n');
    await tick(10);
    assert.deepEqual(posted.filter((m) => m.type === 'append'), []);
    session.handle({ type: 'ready' });
    page.ackAll();
    assert.equal(page.text(), 'while hidden\n');
  });

  it('ignores malformed page messages', () => {
    const { posted, session } = open();
    posted.length = 0;
    for (const m of [undefined, 'ready', { type: 'ack', session: 'x' }, { type: 'eval', code: '1' }]) session.handle(m);
    assert.deepEqual(posted, []);
  });
});
