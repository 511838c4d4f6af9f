// Benchmark of the log panel: realistic job output (colours, progress bars) through the real
// host side (LogSession: spool, batching, flow control, skip-ahead) into the page in headless
// Chromium. Prints one JSON line: {"figure":"ui.log_panel_mb_s","value":N,"unit":"MB/s", ...extra}.
//
// value: a job printing 100 MB as fast as the host takes it (1 MB per event-loop turn) into an
// open, following panel: MB produced / seconds until the page acknowledged the last byte. The
// panel keeps up by skipping a lagging terminal ahead to the newest lines its scrollback holds
// (LogSessionOptions.catchUpBytes). It counts as 0 unless Save (the spool copied to a file)
// holds every byte produced and the terminal, since its last skip, was written exactly the log
// from there to the end.
// Extra: backlog_mb_s, the same 100 MB already on the host when the page loads (a reload or
// reveal); terminal_mb_s, the page alone parsing every byte (xterm.js's own speed, page-side
// host driver, no skipping), with its ping latency and renderer CPU; the base64-vs-array
// measurement behind the protocol's choice; this machine's single-thread speed.
// Run: npx tsx bench/ui-logs.ts
import { DEFAULT_PUMP } from '../src/ui/logs/outputPump';
import { logBlock } from '../test/webview/corpus';
import { buildBundle, launch, LogPage, serve } from '../test/webview/harness';
import { pageReplay } from '../test/webview/pageDriver';
import { floodReplay, percentile, type FloodResult } from '../test/webview/replay';
import { runBench } from './runBench';
import type { Browser } from 'playwright-core';

const TOTAL_MB = 100;
const round = (x: number, d = 1) => Number(x.toFixed(d));
const log = (s: string) => process.stderr.write(`${s}\n`);

/** Millions of iterations per second of a tight integer loop: how fast this machine's core is. */
function calibrate(): number {
  const t0 = performance.now();
  let s = 0;
  for (let i = 0; i < 2e8; i++) s = (Math.imul(s, 31) + i) >>> 0;
  if (s === 42) log('');
  return 200 / ((performance.now() - t0) / 1000);
}

/** Host-side cost and wire size of one 256 KB batch, as base64 and as a number array. */
function hostEncoding(batch: Buffer): Record<string, number> {
  const reps = 40;
  let t0 = performance.now();
  let b64 = '';
  for (let i = 0; i < reps; i++) b64 = JSON.stringify({ type: 'append', data: batch.toString('base64') });
  const b64Ms = (performance.now() - t0) / reps;
  t0 = performance.now();
  let arr = '';
  for (let i = 0; i < reps; i++) arr = JSON.stringify({ type: 'append', data: Array.from(batch) });
  const arrMs = (performance.now() - t0) / reps;
  const mb = batch.length / 1048576;
  return {
    base64_wire_ratio: round(b64.length / batch.length, 2),
    array_wire_ratio: round(arr.length / batch.length, 2),
    base64_encode_mb_s: round(mb / (b64Ms / 1000)),
    array_encode_mb_s: round(mb / (arrMs / 1000)),
  };
}

/** Page-side decode of the same batch: the page's decoder (native fromBase64, else atob) vs a JSON number array. */
async function pageDecoding(page: LogPage, batch: Buffer): Promise<Record<string, number>> {
  const r = (await page.page.evaluate(`(() => {
    const b64 = ${JSON.stringify(batch.toString('base64'))};
    const json = ${JSON.stringify(JSON.stringify(Array.from(batch)))};
    const reps = 40, mb = ${batch.length} / 1048576;
    const time = (f) => { const t0 = performance.now(); let x; for (let i = 0; i < reps; i++) x = f(); if (!x.length) throw 0; return mb / ((performance.now() - t0) / 1000 / reps); };
    const atobLoop = () => { const bin = atob(b64); const out = new Uint8Array(bin.length); for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i); return out; };
    return {
      base64_native_decode_mb_s: Uint8Array.fromBase64 ? time(() => Uint8Array.fromBase64(b64)) : 0,
      base64_atob_decode_mb_s: time(atobLoop),
      array_decode_mb_s: time(() => new Uint8Array(JSON.parse(json))),
    };
  })()`)) as Record<string, number>;
  return Object.fromEntries(Object.entries(r).map(([k, v]) => [k, round(v)]));
}

/** The figure's JSON line (also used by bench/ui.ts). */
export async function measureLogPanel(): Promise<Record<string, unknown>> {
  const served = await serve(await buildBundle());
  let browser: Browser | undefined;
  try {
    // Inside the try: a browser that cannot start must still close the server.
    const launched = await launch();
    browser = launched.browser;
    const { context } = launched;
    const cdp = await browser.newBrowserCDPSession();
    const rendererCpu = async () =>
      ((await cdp.send('SystemInfo.getProcessInfo')) as { processInfo: { type: string; cpuTime: number }[] }).processInfo
        .filter((p) => p.type === 'renderer')
        .reduce((a, p) => a + p.cpuTime, 0);
    const blocks = [0, 1, 2, 3].map((seed) => logBlock(DEFAULT_PUMP.batchBytes, seed * 1000));
    const rounds = Math.ceil((TOTAL_MB * 1048576) / blocks.reduce((a, b) => a + b.length, 0));

    // Warm-up: JIT and fonts, on a page of its own.
    const warm = await LogPage.open(context, served.url);
    await pageReplay(warm, blocks, 4, DEFAULT_PUMP.windowBytes);
    await warm.close();

    const flood = async (mode: 'live' | 'backlog'): Promise<FloodResult> => {
      const p = await LogPage.open(context, served.url);
      try {
        const r = await floodReplay(p, TOTAL_MB, mode);
        log(`${mode}: ${(r.bytes / 1048576).toFixed(0)} MB in ${r.seconds.toFixed(2)} s; terminal parsed ${(r.drawnBytes / 1048576).toFixed(1)} MB over ${r.resets} resets, shows the log from byte ${r.shownFrom}; save ${r.savedOk ? 'ok' : 'MISMATCH'}, shown ${r.shownOk ? 'ok' : 'MISMATCH'}`);
        return r;
      } finally {
        await p.close();
      }
    };
    const live = await flood('live');
    const backlog = await flood('backlog');

    const page = await LogPage.open(context, served.url);
    const cpu0 = await rendererCpu();
    const r = await pageReplay(page, blocks, rounds, DEFAULT_PUMP.windowBytes);
    const cpuSeconds = (await rendererCpu()) - cpu0;
    const dropped = r.bytes - r.written;
    log(`terminal alone: ${(r.bytes / 1048576).toFixed(0)} MB in ${r.seconds.toFixed(1)} s; renderer CPU ${cpuSeconds.toFixed(1)} s; dropped ${dropped}; checksum ${r.checksumOk ? 'ok' : 'MISMATCH'}`);
    const encoding = { ...hostEncoding(blocks[0]), ...(await pageDecoding(page, blocks[0])) };
    const ok = live.savedOk && live.shownOk && backlog.savedOk && backlog.shownOk && dropped === 0 && r.checksumOk;
    return {
      figure: 'ui.log_panel_mb_s',
      value: ok ? round(live.mbPerSecond) : 0,
      unit: 'MB/s',
      bytes: live.bytes,
      seconds: round(live.seconds, 2),
      saved_bytes_ok: live.savedOk && backlog.savedOk,
      shown_tail_ok: live.shownOk && backlog.shownOk,
      terminal_parsed_bytes: live.drawnBytes,
      skips: live.resets - 1,
      backlog_mb_s: round(backlog.mbPerSecond),
      backlog_terminal_parsed_bytes: backlog.drawnBytes,
      terminal_mb_s: round(r.mbPerSecond),
      terminal_dropped_bytes: dropped,
      terminal_checksum_ok: r.checksumOk,
      terminal_renderer_cpu_mb_s: round(r.bytes / 1048576 / cpuSeconds),
      terminal_ping_ms: { p50: round(percentile(r.pings, 50)), p95: round(percentile(r.pings, 95)), max: round(Math.max(...r.pings)), n: r.pings.length },
      batch_bytes: DEFAULT_PUMP.batchBytes,
      window_bytes: DEFAULT_PUMP.windowBytes,
      encoding,
      cpu_calibration_mops: round(calibrate(), 0),
    };
  } finally {
    await browser?.close();
    await served.close();
  }
}

if (require.main === module) {
  runBench(async () => {
    const line = await measureLogPanel();
    process.stdout.write(JSON.stringify(line) + '\n');
    if (line.value === 0) process.exitCode = 1;
  });
}
