import type { Browser, BrowserContext } from 'playwright-core';
import { buildBundle, launch, LogPage, serve, type Served } from './harness';

/** Registers before/after hooks: one Chromium and one page server for the enclosing describe. */
export function usePage(): { open(opts?: { state?: unknown; width?: number; height?: number }): Promise<LogPage> } {
  let browser: Browser;
  let context: BrowserContext;
  let served: Served;
  const pages: LogPage[] = [];
  before(async function () {
    this.timeout(60_000);
    served = await serve(await buildBundle());
    ({ browser, context } = await launch());
  });
  afterEach(async () => {
    for (const p of pages.splice(0)) {
      const errors = p.errors.slice();
      const violations = (await p.page.evaluate('window.__violations')) as string[];
      await p.close();
      if (errors.length) throw new Error(`page errors: ${errors.join('; ')}`);
      if (violations.length) throw new Error(`CSP violations: ${violations.join('; ')}`);
    }
  });
  after(async () => {
    await browser?.close();
    await served?.close();
  });
  return {
    async open(opts) {
      const p = await LogPage.open(context, served.url, opts);
      pages.push(p);
      return p;
    },
  };
}
