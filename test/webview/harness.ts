// Loads the log page alone in headless Chromium: the real bundle (built here with esbuild), the
// real HTML and CSP from panelHtml(), served from 127.0.0.1, with a stub acquireVsCodeApi that
// records what the page posts and lets the test play the host.
import * as esbuild from 'esbuild';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { panelHtml } from '../../src/ui/logs/panelHtml';
import type { HostMessage, PageMessage } from '../../src/ui/logs/protocol';

const ROOT = path.join(__dirname, '..', '..');
export const CHROMIUM = process.env.SKYDECK_CHROMIUM ?? '/usr/bin/chromium';
export const SCREENSHOTS = path.join(ROOT, 'test-output', 'webview');

let bundle: Promise<string> | undefined;

/** Builds webview-ui/logs into a temp dir once per process; returns the dir. */
export function buildBundle(): Promise<string> {
  bundle ??= (async () => {
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-webview-'));
    await esbuild.build({
      entryPoints: { logs: path.join(ROOT, 'webview-ui', 'logs', 'main.ts') },
      bundle: true, platform: 'browser', format: 'iife', target: 'es2022', minify: true,
      outdir: out, logLevel: 'silent',
    });
    process.once('exit', () => fs.rmSync(out, { recursive: true, force: true }));
    return out;
  })();
  return bundle;
}

export interface Served {
  url: string;
  close(): Promise<void>;
}

/** Serves the page as the host would build it, with `origin` standing in for webview.cspSource. */
export async function serve(dir: string): Promise<Served> {
  const server = http.createServer((req, res) => {
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const name = (req.url ?? '/').split('?')[0];
    if (name === '/') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(panelHtml({ cspSource: origin, scriptUri: `${origin}/logs.js`, styleUri: `${origin}/logs.css`, title: 'logs' }));
      return;
    }
    const file = { '/logs.js': 'logs.js', '/logs.css': 'logs.css' }[name];
    if (!file) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': file.endsWith('.js') ? 'text/javascript' : 'text/css' });
    res.end(fs.readFileSync(path.join(dir, file)));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  return { url, close: () => new Promise((r) => server.close(() => r())) };
}

/** One browser and one context (pages in a shared context open several times faster). */
export async function launch(): Promise<{ browser: Browser; context: BrowserContext }> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    // A fresh, empty profile per launch is playwright's default for launch().
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  return { browser, context: await browser.newContext() };
}

/**
 * Runs before the bundle. A string, not a function: tsx compiles test functions with helpers
 * (`__name`) that do not exist in the page.
 */
const STUB_VSCODE_API = `
  window.__violations = [];
  document.addEventListener('securitypolicyviolation', (e) => window.__violations.push(e.violatedDirective + ' ' + e.blockedURI));
  window.__state = window.__initialState;
  window.acquireVsCodeApi = () => ({
    postMessage: (m) => window.__toHost(m),
    getState: () => window.__state,
    setState: (s) => { window.__state = s; },
  });
  // Reaches the app (main.ts calls the hook); also counts and checksums every byte the page writes.
  // sinceReset: the same since the page's last reset (what the terminal holds after a skip).
  window.__skydeckLogsTestHook = (app) => {
    window.__app = app;
    const stats = { bytes: 0, sum: 0, resets: 0, sinceReset: { bytes: 0, sum: 0 } };
    window.__written = stats;
    const write = app.view.write.bind(app.view);
    app.view.write = (d, cb) => {
      if (typeof d !== 'string') {
        stats.bytes += d.length;
        stats.sinceReset.bytes += d.length;
        let s = stats.sum, r = stats.sinceReset.sum;
        for (let i = 0; i < d.length; i++) {
          s = (Math.imul(s, 31) + d[i]) >>> 0;
          r = (Math.imul(r, 31) + d[i]) >>> 0;
        }
        stats.sum = s;
        stats.sinceReset.sum = r;
      }
      write(d, cb);
    };
    const onMessage = app.onMessage.bind(app);
    app.onMessage = (m) => {
      if (m.type === 'reset') {
        stats.resets++;
        stats.sinceReset = { bytes: 0, sum: 0 };
      }
      onMessage(m);
    };
  };
`;

/** The checksum STUB_VSCODE_API computes over written bytes, for comparing in Node. */
export function checksum(chunks: Iterable<Uint8Array>, start = 0): number {
  let s = start;
  for (const d of chunks) for (let i = 0; i < d.length; i++) s = (Math.imul(s, 31) + d[i]) >>> 0;
  return s;
}

/** The page under test plus the host's end of its message channel. */
export class LogPage {
  /** Every message the page posted, in order. */
  readonly posted: PageMessage[] = [];
  private readonly listeners = new Set<(m: PageMessage) => void>();

  private constructor(readonly page: Page) {}

  /** Opens the page; `state` is what getState() returns, as after a window reload. */
  static async open(context: BrowserContext, url: string, opts: { state?: unknown; width?: number; height?: number } = {}): Promise<LogPage> {
    const page = await context.newPage();
    await page.setViewportSize({ width: opts.width ?? 1000, height: opts.height ?? 560 });
    const lp = new LogPage(page);
    await page.exposeBinding('__toHost', (_src, m: PageMessage) => lp.received(m));
    await page.addInitScript(`window.__initialState = ${JSON.stringify(opts.state ?? null)};\n${STUB_VSCODE_API}`);
    page.on('pageerror', (e) => lp.errors.push(e.message));
    await page.goto(url);
    await lp.waitFor((m) => m.type === 'ready');
    return lp;
  }

  readonly errors: string[] = [];

  private received(m: PageMessage): void {
    this.posted.push(m);
    for (const l of this.listeners) l(m);
  }

  onMessage(l: (m: PageMessage) => void): () => void {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  }

  /** Resolves with the first posted message (past or future) that matches. */
  waitFor(pred: (m: PageMessage) => boolean, timeoutMs = 10_000): Promise<PageMessage> {
    const seen = this.posted.find(pred);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const t = setTimeout(() => (off(), reject(new Error('timed out waiting for a page message'))), timeoutMs);
      const off = this.onMessage((m) => {
        if (!pred(m)) return;
        clearTimeout(t);
        off();
        resolve(m);
      });
    });
  }

  /** Delivers host messages in order, as webview.postMessage does. */
  async send(...messages: HostMessage[]): Promise<void> {
    await this.page.evaluate((ms) => {
      for (const m of ms) window.postMessage(m, '*');
    }, messages);
  }

  /** Resets the page for `session` and appends `text`; resolves once the page acknowledged it. */
  async write(text: string | Buffer, session = 1, reset = true): Promise<void> {
    const data = typeof text === 'string' ? Buffer.from(text) : text;
    const offset = reset ? 0 : await this.offset();
    const msgs: HostMessage[] = [];
    if (reset) msgs.push({ type: 'reset', session, key: { cluster: 'gpu-box', jobId: 12, name: 'train' }, from: 0, skipped: 0 });
    msgs.push({ type: 'append', session, offset, data: data.toString('base64') });
    await this.send(...msgs);
    await this.waitFor((m) => m.type === 'ack' && m.session === session && m.offset === offset + data.length);
  }

  /** The page's acknowledged offset, from its last ack. */
  async offset(): Promise<number> {
    const acks = this.posted.filter((m): m is Extract<PageMessage, { type: 'ack' }> => m.type === 'ack');
    return acks.length ? acks[acks.length - 1].offset : 0;
  }

  /** Runs `fn` in the page against the xterm Terminal. */
  term<T, A = undefined>(fn: (term: import('@xterm/xterm').Terminal, arg: A) => T, arg?: A): Promise<T> {
    // A string goes through DevTools' evaluate, which the page's CSP (no 'unsafe-eval') does not block.
    // __name: the helper tsx wraps named inner functions in; the page has none.
    return this.page.evaluate(`((__name) => (${fn.toString()})(window.__app.view.term, ${JSON.stringify(arg ?? null)}))((f) => f)`) as Promise<T>;
  }

  /**
   * Polls a page expression until it is truthy. (page.waitForFunction evaluates with eval inside
   * the page, which the CSP rightly blocks.)
   */
  async until(expression: string, timeoutMs = 10_000): Promise<unknown> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const v = await this.page.evaluate(expression);
      if (v) return v;
      if (Date.now() > deadline) throw new Error(`timed out waiting for: ${expression}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  /** Text of the buffer's lines (trailing spaces trimmed), scrollback included. */
  lines(): Promise<string[]> {
    return this.term((t) => {
      const b = t.buffer.active;
      const out: string[] = [];
      for (let y = 0; y < b.length; y++) out.push(b.getLine(y)!.translateToString(true));
      while (out.length && out[out.length - 1] === '') out.pop();
      return out;
    });
  }

  async close(): Promise<void> {
    await this.page.close();
  }
}

export function screenshotPath(name: string): string {
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  return path.join(SCREENSHOTS, name);
}
