// Playwright driver for a real VS Code workbench served by code-server: start it with Skydeck
// loaded from source, open a workspace, and act as a user would (activity bar, command palette,
// notifications, screenshots). Used by the UI suites in this folder; runs in Node, not inside
// the extension host. Selectors are VS Code 1.100's DOM.
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { launchBrowser, makeScratchDir, removeScratch, startCodeServer, extensionHostText, workbenchLogText, type CodeServer } from '../../../scripts/vscode-test/codeServer.mjs';

export const ROOT = resolve(__dirname, '../../..');
export const SCREENSHOT_DIR = join(ROOT, 'test-output/ui');

export interface OpenOptions {
  /** Files (repo-relative) copied into a fresh scratch workspace, keeping their paths. */
  files?: string[];
  /** Extra environment for code-server and its extension host. */
  env?: Record<string, string>;
  settings?: Record<string, unknown>;
  log?: (line: string) => void;
  /** The extension loaded from source; default: this repo. */
  extensionPath?: string;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

export class Workbench {
  /** Extension-host and workbench error lines seen so far (printed when a test fails). */
  readonly console: string[] = [];

  private constructor(
    readonly server: CodeServer,
    readonly browser: Browser,
    readonly page: Page,
    readonly workspace: string,
    private readonly scratch: string,
  ) {}

  /** code-server + Chromium + the workbench on a scratch workspace, Skydeck loaded from ROOT. */
  static async open(opts: OpenOptions = {}): Promise<Workbench> {
    const log = opts.log ?? (() => {});
    const scratch = makeScratchDir('skydeck-ui-');
    const workspace = join(scratch, 'workspace');
    mkdirSync(workspace, { recursive: true });
    for (const f of opts.files ?? []) {
      mkdirSync(join(workspace, f, '..'), { recursive: true });
      copyFileSync(join(ROOT, f), join(workspace, f));
    }
    let server: CodeServer | undefined;
    let browser: Browser | undefined;
    try {
      server = await startCodeServer({ scratchDir: join(scratch, 'server'), env: opts.env, settings: opts.settings, log });
      browser = await launchBrowser();
      const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
      const wb = new Workbench(server, browser, page, workspace, scratch);
      page.on('console', (msg) => {
        const raw = msg.text();
        const ext = extensionHostText(raw);
        if (ext !== null) wb.console.push(`[extension host] ${ext}`);
        else if (/^%c\s*(ERR|WARN) /.test(raw)) wb.console.push(`[workbench] ${workbenchLogText(raw)}`);
      });
      page.on('pageerror', (e) => wb.console.push(`[page error] ${e.message}`));
      await page.goto(server.workbenchUrl({ folder: workspace, extensionDevelopmentPath: [opts.extensionPath ?? ROOT] }), { waitUntil: 'domcontentloaded' });
      await page.locator('.monaco-workbench .part.activitybar').waitFor({ timeout: 60_000 });
      log('workbench loaded');
      return wb;
    } catch (e) {
      await browser?.close().catch(() => {});
      await server?.stop();
      removeScratch(scratch);
      throw e;
    }
  }

  /** Closes the browser and stops code-server's whole process tree. */
  async close(): Promise<void> {
    await this.browser.close().catch(() => {});
    await this.server.stop();
    removeScratch(this.scratch);
  }

  /** The activity-bar entry of a view container, by its title. */
  activityBarItem(title: string): Locator {
    return this.page.locator(`.part.activitybar .action-item[aria-label^="${title}"], .part.activitybar .action-label[aria-label^="${title}"]`).first();
  }

  /** Clicks a view container's activity-bar icon (waits for it: contributions arrive late). */
  async openViewContainer(title: string): Promise<Locator> {
    const item = this.activityBarItem(title);
    await item.waitFor({ timeout: 60_000 });
    await item.click();
    const sidebar = this.page.locator('.part.sidebar');
    await sidebar.locator('.composite.title', { hasText: new RegExp(escapeRegExp(title), 'i') }).waitFor();
    return sidebar;
  }

  /** A view's pane (header + body) in the side bar, by the view's name. */
  pane(name: string): Locator {
    return this.page.locator('.part.sidebar .pane', { has: this.page.locator('.pane-header', { hasText: new RegExp(`^\\s*${escapeRegExp(name)}`, 'i') }) });
  }

  /** The command palette (F1) filtered by `query`; returns the rows' labels. */
  async paletteEntries(query: string): Promise<string[]> {
    await this.openPalette(query);
    const rows = this.page.locator('.quick-input-widget .quick-input-list .monaco-list-row');
    await rows.first().waitFor();
    // The list is virtual; at 800 px high every Skydeck command fits.
    return (await rows.locator('.label-name').allInnerTexts()).map((s) => s.trim());
  }

  /** Runs a command from the command palette (F1) by its full title, e.g. "Skydeck: Refresh". */
  async runCommand(title: string): Promise<void> {
    await this.openPalette(title);
    const row = this.page.locator('.quick-input-widget .quick-input-list .monaco-list-row', {
      has: this.page.locator('.label-name', { hasText: new RegExp(`^\\s*${escapeRegExp(title)}\\s*$`) }),
    });
    await row.first().waitFor();
    await row.first().click();
    await this.page.locator('.quick-input-widget').waitFor({ state: 'hidden' });
  }

  private async openPalette(query: string): Promise<void> {
    const widget = this.page.locator('.quick-input-widget');
    if (!(await widget.isVisible())) {
      await this.page.locator('.part.editor').click({ position: { x: 50, y: 50 } }); // focus the workbench
      await this.page.keyboard.press('F1');
      await widget.waitFor();
    }
    const input = widget.locator('.quick-input-box input');
    await input.fill(`>${query}`);
  }

  async closePalette(): Promise<void> {
    const widget = this.page.locator('.quick-input-widget');
    if (await widget.isVisible()) {
      await this.page.keyboard.press('Escape');
      await widget.waitFor({ state: 'hidden' });
    }
  }

  /**
   * The remote extension host's own log (user-data/logs/<session>/exthost<N>/remoteexthost.log):
   * activation events, and activation failures with their stack, which the page's console never
   * shows for a normal window.
   */
  extensionHostLog(): string {
    const logs = join(this.server.userDataDir, 'logs');
    if (!existsSync(logs)) return '';
    let out = '';
    for (const session of readdirSync(logs)) {
      for (const host of readdirSync(join(logs, session)).filter((d) => d.startsWith('exthost'))) {
        const f = join(logs, session, host, 'remoteexthost.log');
        if (existsSync(f)) out += readFileSync(f, 'utf8');
      }
    }
    return out;
  }

  /**
   * Waits until `ready()` holds, a sign the extension is active and did something; fails at once
   * with the logged error if the extension host says `extensionId` failed to activate. (The log
   * has no line for a successful activation, and a view's welcome content shows either way.)
   */
  async waitUntilActive(extensionId: string, ready: () => boolean | Promise<boolean>, timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const log = this.extensionHostLog();
      const failed = log.indexOf(`Activating extension ${extensionId} failed`);
      if (failed >= 0) throw new Error(`activation failed:\n${log.slice(failed, failed + 1500)}`);
      if (await ready()) return;
      if (Date.now() > deadline) {
        const seen = new RegExp(`_doActivateExtension ${escapeRegExp(extensionId)}[,\\s]`).test(log);
        throw new Error(`${extensionId}: ${seen ? 'activation started but' : 'not activated and'} not ready within ${timeoutMs} ms`);
      }
      await this.page.waitForTimeout(100);
    }
  }

  /** Texts of the error notifications now on screen. */
  async errorToasts(): Promise<string[]> {
    return (await this.page.locator('.notifications-toasts .notification-toast:has(.codicon-error) .notification-list-item-message').allInnerTexts()).map((s) => s.trim());
  }

  /** Texts of the notification toasts now on screen. */
  async toasts(): Promise<string[]> {
    return (await this.page.locator('.notifications-toasts .notification-toast .notification-list-item-message').allInnerTexts()).map((s) => s.trim());
  }

  /** Saves a PNG into test-output/ui/ and returns its path. */
  async screenshot(name: string): Promise<string> {
    mkdirSync(SCREENSHOT_DIR, { recursive: true });
    const path = join(SCREENSHOT_DIR, `${name}.png`);
    await this.page.screenshot({ path });
    return path;
  }
}
