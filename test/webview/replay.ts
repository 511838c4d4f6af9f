// Replays a log through the real host side (LogSession with its spool, batching and flow
// control) into the page over DevTools, pinging the page meanwhile. The DevTools link is far
// slower than VS Code's IPC, so this checks correctness end to end; pageDriver.ts measures speed.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { LogSession, type LogSessionOptions } from '../../src/ui/logs/logSession';
import type { HostMessage } from '../../src/ui/logs/protocol';
import type { PumpOptions } from '../../src/ui/logs/outputPump';
import { FakeSource } from '../unit/logs/fakeSource';
import { HostBridge } from './bridge';
import { logBlock } from './corpus';
import { checksum, type LogPage } from './harness';
import type { PageReplayResult } from './pageDriver';

/** A replay through the real host-side pump: the page's figures plus what crossed the wire. */
export interface ReplayResult extends PageReplayResult {
  wireBytes: number;
}

export async function hostReplay(page: LogPage, totalMb: number, pump?: Partial<PumpOptions>): Promise<ReplayResult> {
  const spoolDir = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-replay-'));
  const source = new FakeSource();
  const bridge = new HostBridge();
  const session = new LogSession({ cluster: 'gpu-box', jobId: 12, name: 'train' }, source, bridge.post, () => undefined, {
    spoolDir, replayTailBytes: Number.POSITIVE_INFINITY, pump,
  });
  try {
    session.start();
    // The whole log is on the host before the page asks: a reload's replay, the worst case.
    const block = logBlock(1024 * 1024);
    const total = totalMb * block.length;
    let sum = 0;
    for (let i = 0; i < totalMb; i++) {
      source.push(block);
      sum = checksum([block], sum);
    }
    const pings: number[] = [];
    let pinging = true;
    const pinger = (async () => {
      for (let id = 1; pinging; id++) {
        const t0 = performance.now();
        await page.send({ type: 'ping', id });
        await page.waitFor((m) => m.type === 'pong' && m.id === id, 30_000);
        pings.push(performance.now() - t0);
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
    const t0 = performance.now();
    const detach = bridge.attach(page, session); // delivers the page's `ready`: reset, then the backlog
    await page.waitFor((m) => m.type === 'ack' && m.offset === total, 600_000);
    const seconds = (performance.now() - t0) / 1000;
    pinging = false;
    await pinger;
    detach();
    const w = (await page.page.evaluate('window.__written')) as { bytes: number; sum: number };
    return {
      bytes: total, seconds, mbPerSecond: total / 1024 / 1024 / seconds,
      written: w.bytes, checksumOk: w.sum === sum, pings, wireBytes: bridge.wireBytes,
    };
  } finally {
    session.dispose();
    fs.rmSync(spoolDir, { recursive: true, force: true });
  }
}

export function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN;
}

/** A flood through the real host side, where the session may skip a lagging page ahead. */
export interface FloodResult {
  bytes: number;
  /** From the first byte produced to the page acknowledging the last one. */
  seconds: number;
  mbPerSecond: number;
  /** Save (the spool copied to a file) holds exactly the bytes produced. */
  savedOk: boolean;
  /** Since its last reset, the terminal was written exactly the log from that reset's offset to the end. */
  shownOk: boolean;
  /** Offset the terminal's content starts at (bytes before it are in Save, not on screen). */
  shownFrom: number;
  resets: number;
  /** Bytes the terminal parsed in all (every session). */
  drawnBytes: number;
  wireBytes: number;
}

/**
 * `totalMb` of job output through LogSession (spool, pump, skip-ahead) into the page:
 * 'backlog' = all of it on the host before the page loads (a reload or a reveal);
 * 'live' = the page is open and the job prints as fast as the host can take it, 1 MB per turn.
 */
export async function floodReplay(page: LogPage, totalMb: number, mode: 'backlog' | 'live', opts: LogSessionOptions = {}): Promise<FloodResult> {
  const spoolDir = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-flood-'));
  const source = new FakeSource();
  const bridge = new HostBridge();
  let shownFrom = 0;
  const post = (m: HostMessage) => {
    if (m.type === 'reset') shownFrom = m.from;
    bridge.post(m);
  };
  const session = new LogSession({ cluster: 'gpu-box', jobId: 12, name: 'train' }, source, post, () => undefined, { spoolDir, ...opts });
  const blocks = [0, 1, 2, 3].map((seed) => logBlock(1024 * 1024, seed * 1000));
  const chunks = Array.from({ length: totalMb }, (_, i) => blocks[i % blocks.length]);
  const total = chunks.reduce((a, b) => a + b.length, 0);
  await page.page.evaluate('window.__written.bytes = 0; window.__written.sum = 0;');
  let detach = () => undefined as unknown;
  try {
    session.start();
    const t0 = performance.now();
    if (mode === 'backlog') {
      for (const c of chunks) source.push(c);
      detach = bridge.attach(page, session);
    } else {
      detach = bridge.attach(page, session);
      for (const c of chunks) {
        source.push(c);
        await new Promise((r) => setImmediate(r));
      }
    }
    await page.waitFor((m) => m.type === 'ack' && m.offset === total, 600_000);
    const seconds = (performance.now() - t0) / 1000;
    detach();
    const saved = path.join(spoolDir, 'saved.log');
    await session.copyTo(saved);
    const savedOk = fs.readFileSync(saved).equals(Buffer.concat(chunks));
    const w = (await page.page.evaluate('window.__written')) as { bytes: number; resets: number; sinceReset: { bytes: number; sum: number } };
    const shown = Buffer.concat(chunks).subarray(shownFrom);
    return {
      bytes: total, seconds, mbPerSecond: total / 1048576 / seconds, savedOk,
      shownOk: w.sinceReset.bytes === shown.length && w.sinceReset.sum === checksum([shown]),
      shownFrom, resets: w.resets, drawnBytes: w.bytes, wireBytes: bridge.wireBytes,
    };
  } finally {
    detach();
    session.dispose();
    fs.rmSync(spoolDir, { recursive: true, force: true });
  }
}
