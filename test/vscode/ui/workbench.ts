// Playwright driver for a real VS Code workbench served by code-server: start it with Skydeck
// loaded from source, open a workspace, and act as a user would (activity bar, command palette,
// notifications, screenshots). Used by the UI suites in this folder; runs in Node, not inside
// the extension host. Selectors are VS Code 1.100's DOM.
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { Browser, Frame, Locator, Page } from 'playwright-core';
import { assertBrowser, launchBrowser, makeScratchDir, removeScratch, startCodeServer, extensionHostText, workbenchLogText, type CodeServer } from '../../../scripts/vscode-test/codeServer.mjs';

export const ROOT = resolve(__dirname, '../../..');
export const SCREENSHOT_DIR = join(ROOT, 'test-output/ui');
/** The Skydeck under test: this repo, or the copy installed from the .vsix (run-all.mjs --packaged). */
export const EXTENSION = process.env.SKYDECK_TEST_EXTENSION ? resolve(process.env.SKYDECK_TEST_EXTENSION) : ROOT;

export interface OpenOptions {
  /** Files (repo-relative) copied into a fresh scratch workspace, keeping their paths, or to `to`. */
  files?: (string | { from: string; to: string })[];
  /** Extra environment for code-server and its extension host. */
  env?: Record<string, string>;
  settings?: Record<string, unknown>;
  log?: (line: string) => void;
  /** The extension loaded as a development extension; default: EXTENSION. */
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

  /** code-server + Chromium + the workbench on a scratch workspace, Skydeck loaded from EXTENSION. */
  static async open(opts: OpenOptions = {}): Promise<Workbench> {
    const log = opts.log ?? (() => {});
    const scratch = makeScratchDir('skydeck-ui-');
    const workspace = join(scratch, 'workspace');
    mkdirSync(workspace, { recursive: true });
    for (const f of opts.files ?? []) {
      const { from, to } = typeof f === 'string' ? { from: f, to: f } : f;
      mkdirSync(dirname(join(workspace, to)), { recursive: true });
      copyFileSync(join(ROOT, from), join(workspace, to));
    }
    let server: CodeServer | undefined;
    let browser: Browser | undefined;
    try {
      assertBrowser(); // before code-server: without a browser there is no workbench
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
      // (60 s as in the launcher: on a loaded 2-core machine the first load can exceed Playwright's 30 s.)
      await page.goto(server.workbenchUrl({ folder: workspace, extensionDevelopmentPath: [opts.extensionPath ?? EXTENSION] }), { waitUntil: 'domcontentloaded', timeout: 60_000 });
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
    // The list is virtual: only the rows in view exist (callers look up the rest by name).
    return (await rows.locator('.label-name').allInnerTexts()).map((x) => x.trim());
  }

  /** Runs a command from the command palette (F1) by its full title, e.g. "Skydeck: Refresh". */
  async runCommand(title: string): Promise<void> {
    await this.startCommand(title);
    await this.page.locator('.quick-input-widget').waitFor({ state: 'hidden' });
  }

  /**
   * Picks a command in the palette and returns at once: for commands that prompt next (the
   * same quick-input widget then shows their pick or input box, so it may never hide).
   */
  async startCommand(title: string): Promise<void> {
    await this.openPalette(title);
    const row = this.page.locator('.quick-input-widget .quick-input-list .monaco-list-row', {
      has: this.page.locator('.label-name', { hasText: new RegExp(`^\\s*${escapeRegExp(title)}\\s*$`) }),
    });
    await row.first().waitFor();
    await row.first().click();
  }

  /**
   * Answers a command's quick pick or input box as a user does: waits for the prompt titled
   * `title`, types `text`, and presses Enter. For a pick, `row` is the label that must be the
   * first row once filtered (Enter accepts the first row). Returns once the prompt is gone.
   */
  async answerPrompt(title: string, text: string, row?: string): Promise<void> {
    const widget = this.page.locator('.quick-input-widget');
    await widget.locator('.quick-input-title', { hasText: title }).waitFor({ timeout: 60_000 });
    await widget.locator('.quick-input-box input').fill(text);
    if (row !== undefined) {
      const first = widget.locator('.quick-input-list .monaco-list-row').first();
      await first.locator('.label-name', { hasText: row }).waitFor();
    }
    await this.page.keyboard.press('Enter');
    // The prompt goes (closed, or replaced by the command's next one in the same widget) unless
    // the input box refused the value: then say why.
    const shown = widget.locator('.quick-input-title', { hasText: title });
    try {
      await shown.waitFor({ state: 'hidden', timeout: 15_000 });
    } catch (e) {
      const message = (await widget.locator('.quick-input-message').innerText().catch(() => '')).trim();
      throw new Error(`"${title}" did not accept ${JSON.stringify(text)}${message ? `: ${message}` : ''} (${(e as Error).message.split('\n')[0]})`);
    }
  }

  /** A row of a tree view in the side bar, by its exact label. */
  treeRow(pane: Locator, label: string): Locator {
    return pane.locator('.monaco-list-row', { has: this.page.locator('.label-name', { hasText: new RegExp(`^\\s*${escapeRegExp(label)}\\s*$`) }) });
  }

  /**
   * Right-clicks `target` and chooses `item` in the context menu; fails naming what was offered.
   * `onOpen` runs while the menu is shown (a screenshot).
   */
  async contextMenu(target: Locator, item: string, onOpen?: () => Promise<unknown>): Promise<void> {
    await target.click({ button: 'right' });
    const menu = this.page.locator('.context-view .monaco-menu');
    await menu.waitFor();
    await onOpen?.();
    const entry = menu.locator('.action-item:not(.disabled) .action-label', { hasText: new RegExp(`^\\s*${escapeRegExp(item)}\\s*$`) });
    if ((await entry.count()) === 0) {
      const offered = (await menu.locator('.action-item .action-label').allInnerTexts()).map((s) => s.trim()).filter(Boolean);
      await this.page.keyboard.press('Escape');
      throw new Error(`the context menu has no enabled "${item}" (it offers: ${offered.join(' | ') || 'nothing'})`);
    }
    await entry.first().click();
    await menu.waitFor({ state: 'hidden' });
  }

  /**
   * The frame of a webview panel's page, found by the page's <title> (webviews in code-server
   * are an iframe inside an iframe; the inner one holds the extension's HTML). Undefined until
   * the page has loaded.
   */
  async webviewFrame(title: string): Promise<Frame | undefined> {
    for (const frame of this.page.frames()) {
      if (frame === this.page.mainFrame()) continue;
      const t = await frame.evaluate(() => document.title).catch(() => undefined);
      if (t === title) return frame;
    }
    return undefined;
  }

  /** Clicks `button` in the modal dialog whose message contains `message` (`onOpen` runs first). */
  async dialogButton(message: string, button: string, onOpen?: () => Promise<unknown>): Promise<void> {
    const dialog = this.page.locator('.monaco-dialog-box', { hasText: message });
    await dialog.waitFor({ timeout: 30_000 });
    await onOpen?.();
    await dialog.locator('.monaco-button', { hasText: new RegExp(`^\\s*${escapeRegExp(button)}\\s*$`) }).click();
    await dialog.waitFor({ state: 'hidden' });
  }

  private async openPalette(query: string): Promise<void> {
    const widget = this.page.locator('.quick-input-widget');
    if (!(await widget.isVisible())) {
      // Focus the workbench itself: F1 typed into an editor's webview (an iframe) is the page's.
      // Blurring rather than clicking the editor area, which a webview covers.
      await this.page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur?.());
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

  /** Saves a PNG into test-output/ui/ (`name` may hold a subfolder) and returns its path. */
  async screenshot(name: string): Promise<string> {
    const path = join(SCREENSHOT_DIR, `${name}.png`);
    mkdirSync(dirname(path), { recursive: true });
    await this.page.screenshot({ path });
    return path;
  }
}
