// Replays a log through the real host side (LogSession with its spool, batching and flow
// control) into the page over DevTools, pinging the page meanwhile. The DevTools link is far
// slower than VS Code's IPC, so this checks correctness end to end; pageDriver.ts measures speed.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { LogSession } from '../../src/ui/logs/logSession';
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
