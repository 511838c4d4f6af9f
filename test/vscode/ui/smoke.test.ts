// UI smoke test in a real VS Code workbench (code-server + headless Chromium): what a user sees
// first. Needs scripts/vscode-test/install-code-server.sh and a built dist/ (npm run build).
// Screenshots go to test-output/ui/.
import * as assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, Workbench } from './workbench';

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  contributes: {
    commands: { command: string; title: string; category?: string }[];
    menus?: { commandPalette?: { command: string; when?: string }[] };
  };
};

describe('UI smoke (code-server + Chromium)', function () {
  this.timeout(120_000);
  let wb: Workbench;
  const t0 = Date.now();
  const note = (s: string) => console.log(`      [+${((Date.now() - t0) / 1000).toFixed(1)}s] ${s}`);

  before(async () => {
    wb = await Workbench.open({ files: ['examples/hello.sky.yaml'], log: note });
  });

  afterEach(async function () {
    if (this.currentTest?.state === 'failed' && wb) {
      const shot = await wb.screenshot(`failed-${this.currentTest.title.replace(/\W+/g, '-')}`).catch(() => '(none)');
      console.log(`      screenshot: ${shot}`);
      if (wb.console.length) console.log(`      console:\n${wb.console.slice(-40).map((l) => `        ${l}`).join('\n')}`);
    }
  });

  after(async () => {
    if (process.env.SKYDECK_TEST_VERBOSE === '1' && wb) console.log(wb.console.map((l) => `        ${l}`).join('\n'));
    await wb?.close();
    note('browser closed, code-server stopped');
  });

  it('opens the workspace holding examples/hello.sky.yaml', async () => {
    const explorer = wb.page.locator('.part.sidebar .explorer-folders-view');
    await explorer.getByText('examples', { exact: true }).waitFor();
  });

  it('shows the Clusters view with its welcome content from the Skydeck activity-bar icon', async () => {
    const sidebar = await wb.openViewContainer('Skydeck');
    const clusters = wb.pane('Clusters');
    await clusters.waitFor();
    const welcome = clusters.locator('.welcome-view-content');
    await welcome.getByText('No clusters yet.').waitFor();
    await welcome.getByRole('button', { name: 'Launch a task' }).waitFor();
    await welcome.getByRole('button', { name: 'Check clouds' }).waitFor();
    // The welcome content shows even when activation failed. The Clusters tree, once it runs,
    // opens the workspace's state (StateStore.openWorkspace writes .skydeck/.gitignore).
    const stateMarker = join(wb.workspace, '.skydeck', '.gitignore');
    await wb.waitUntilActive('skydeck.skydeck', () => existsSync(stateMarker));
    // The view's title actions from package.json menus (navigation group). With one view in the
    // container they sit in the container's title bar ("SKYDECK: CLUSTERS").
    await sidebar.locator('.action-label[aria-label="Launch Task"]:visible').waitFor();
    await sidebar.locator('.action-label[aria-label="Refresh"]:visible').waitFor();
    await wb.screenshot('01-clusters-welcome');
  });

  it('lists every palette command in the command palette (F1), and hides node-only ones', async () => {
    const rows = await wb.paletteEntries('Skydeck: ');
    await wb.screenshot('02-command-palette');
    await wb.closePalette();
    // Commands that act on a tree node are hidden from the palette (menus.commandPalette when:false).
    const hidden = new Set((pkg.contributes.menus?.commandPalette ?? []).filter((m) => m.when === 'false').map((m) => m.command));
    const title = (c: { category?: string; title: string }) => `${c.category ? `${c.category}: ` : ''}${c.title}`;
    const expected = pkg.contributes.commands.filter((c) => !hidden.has(c.command)).map(title);
    // Titles below the visible rows: filter the palette down to each one.
    const missing: string[] = [];
    for (const t of expected.filter((x) => !rows.includes(x))) {
      const found = await wb.paletteEntries(t);
      await wb.closePalette();
      if (found.includes(t)) rows.push(t);
      else missing.push(t);
    }
    assert.deepEqual(missing, [], `not in the palette: ${missing.join(', ')} (palette showed: ${rows.join(' | ')})`);
    const shown = pkg.contributes.commands.filter((c) => hidden.has(c.command)).map(title).filter((t) => rows.includes(t));
    assert.deepEqual(shown, [], 'node-only commands are not in the palette');
  });

  it('runs "Skydeck: Refresh" from the command palette without an error', async () => {
    await wb.runCommand('Skydeck: Refresh');
    // A failing command shows "Skydeck: <message>" as an error toast; give it a moment to appear.
    await wb.page.waitForTimeout(500);
    const errors = await wb.errorToasts();
    assert.deepEqual(errors, [], `error toast(s): ${errors.join(' | ')}`);
    // The view settles (no progress bar) on its welcome content: still no clusters.
    await wb.page.locator('.part.sidebar .monaco-progress-container.active').waitFor({ state: 'hidden' });
    await wb.pane('Clusters').locator('.welcome-view-content').getByText('No clusters yet.').waitFor();
    await wb.screenshot('03-after-refresh');
  });

  it('left no Skydeck error in the extension host log, the console or a notification', async () => {
    const logged = wb.extensionHostLog().split('\n').filter((l) => /\[error\]/.test(l) && /skydeck/i.test(l));
    assert.deepEqual(logged, [], 'errors in remoteexthost.log');
    const console = wb.console.filter((l) => /skydeck/i.test(l) && /\b(ERR|error|failed)\b/i.test(l));
    assert.deepEqual(console, [], 'errors in the page console');
    const toasts = (await wb.errorToasts()).filter((t) => /skydeck/i.test(t));
    assert.deepEqual(toasts, [], 'error notifications');
  });
});
