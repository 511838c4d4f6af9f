// Plays the host inside the page itself: posts pre-encoded appends under the host's flow
// control (a window of unacknowledged bytes) and pings meanwhile, timing everything with the
// page's own clock. This measures the page, not the DevTools link a Node-side host would add.
import { checksum, type LogPage } from './harness';

export interface PageReplayResult {
  bytes: number;
  seconds: number;
  mbPerSecond: number;
  written: number;
  checksumOk: boolean;
  /** Ping → pong times in ms, posted every 50 ms while the replay ran. */
  pings: number[];
}

/** Sent as a string: tsx-compiled functions carry helpers the page does not have. */
const DRIVER = `async ({ blocks, sizes, repeat, windowBytes, pingMs }) => {
  const session = 1000000 + Math.floor(Math.random() * 1e6);
  const total = sizes.reduce((a, b) => a + b, 0) * repeat;
  const toHost = window.__toHost;
  const pings = [];
  const pending = new Map();
  let sent = 0, acked = 0, next = 0, finish;
  const done = new Promise((r) => (finish = r));
  const pump = () => {
    while (sent < total && sent - acked < windowBytes) {
      const k = next++ % blocks.length;
      window.postMessage({ type: 'append', session, offset: sent, data: blocks[k] }, '*');
      sent += sizes[k];
    }
  };
  window.__toHost = (m) => {
    if (m.type === 'ack' && m.session === session) {
      acked = m.offset;
      if (acked >= total) finish(); else pump();
    } else if (m.type === 'pong' && pending.has(m.id)) {
      pings.push(performance.now() - pending.get(m.id));
      pending.delete(m.id);
    } else toHost(m);
  };
  let id = 0;
  const pinger = setInterval(() => {
    pending.set(++id, performance.now());
    window.postMessage({ type: 'ping', id }, '*');
  }, pingMs);
  window.postMessage({ type: 'reset', session, key: { cluster: 'gpu-box', jobId: 12, name: 'train' }, from: 0, skipped: 0 }, '*');
  await new Promise((r) => setTimeout(r, 0));
  const t0 = performance.now();
  pump();
  await done;
  const seconds = (performance.now() - t0) / 1000;
  clearInterval(pinger);
  await new Promise((r) => setTimeout(r, 100));
  window.__toHost = toHost;
  return { total, seconds, pings, written: window.__written.bytes, sum: window.__written.sum };
}`;

/** Replays `blocks` (cycled) until `repeat` rounds went through; checks every byte arrived. */
export async function pageReplay(page: LogPage, blocks: Buffer[], repeat: number, windowBytes = 4 * 1024 * 1024): Promise<PageReplayResult> {
  await page.page.evaluate('window.__written.bytes = 0; window.__written.sum = 0;');
  const r = (await page.page.evaluate(`(${DRIVER})(${JSON.stringify({
    blocks: blocks.map((b) => b.toString('base64')), sizes: blocks.map((b) => b.length), repeat, windowBytes, pingMs: 50,
  })})`)) as { total: number; seconds: number; pings: number[]; written: number; sum: number };
  let expected = 0;
  for (let i = 0; i < repeat; i++) expected = checksum(blocks, expected);
  return {
    bytes: r.total, seconds: r.seconds, mbPerSecond: r.total / 1024 / 1024 / r.seconds,
    written: r.written, checksumOk: r.sum === expected, pings: r.pings,
  };
}
