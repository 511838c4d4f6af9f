// The main editor flow in a real VS Code workbench (code-server + headless Chromium), driven
// only through the UI as a user would: Launch Task from the palette on the `local` cloud
// (answering its prompts by typing), the cluster and job appear in the Clusters view, the log
// panel shows the job's output, Cancel Job from the job's context menu turns it CANCELLED, and
// Down from the palette removes the cluster and every process it started.
// Needs scripts/vscode-test/install-code-server.sh and a built dist/ (npm run build).
// Screenshots of each step go to test-output/ui/launch-cancel/.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator } from 'playwright-core';
import { killProcesses, processesUsing } from './processes';
import { ROOT, SCREENSHOT_DIR, Workbench } from './workbench';

const SHOTS = 'launch-cancel';
const TASK_FILE = 'ui-cancel.sky.yaml';
const JOB_LABEL = '#1 ui-cancel';
// Computed by the job ($((6 * 7))), so it cannot come from the task file's own text.
const OUTPUT = 'ui-cancel output: 42 is the answer';
// Typed over the suggested name ("ui-cancel"), so the test shows the input box was answered.
const CLUSTER = `ui-${process.pid.toString(36)}`;

// The job's status from its tree icon (src/ui/tree/jobNode.ts): the only place the row shows it.
const JOB_ICONS: Record<string, string> = {
  'codicon-clock': 'PENDING',
  'codicon-loading': 'SETTING_UP',
  'codicon-sync': 'RUNNING',
  'codicon-pass': 'SUCCEEDED',
  'codicon-error': 'FAILED',
  'codicon-warning': 'FAILED_DRIVER',
  'codicon-circle-slash': 'CANCELLED',
};

async function jobStatus(row: Locator): Promise<string> {
  const cls = (await row.locator('.custom-view-tree-node-item-icon').first().getAttribute('class', { timeout: 2000 }).catch(() => '')) ?? '';
  const hit = Object.keys(JOB_ICONS).find((c) => cls.split(/\s+/).includes(c));
  return hit ? JOB_ICONS[hit] : `unknown (${cls || 'no icon'})`;
}

describe('UI: launch a task, watch its log, cancel it, tear down (code-server + Chromium)', function () {
  this.timeout(180_000);
  let wb: Workbench;
  let failed = false;
  const shots: string[] = [];
  /** The log panel's terminal rows when the job's output first showed (checked last). */
  let logRows: string[] | undefined;
  // Checks of a finished step's results: they run even after a later step failed.
  const independent = new Set<string>();
  const t0 = Date.now();
  const note = (s: string) => console.log(`      [+${((Date.now() - t0) / 1000).toFixed(1)}s] ${s}`);
  const shot = async (name: string) => shots.push(await wb.screenshot(`${SHOTS}/${name}`));
  const leftovers = () => processesUsing(wb.workspace, [wb.server.pid]);

  /**
   * Polls `probe` until it returns a value (not undefined), every 250 ms, for at most `ms`.
   * Fails at once on a Skydeck error notification: a failed command shows one and never
   * produces the state waited for.
   */
  async function until<T>(what: string, ms: number, probe: () => Promise<T | undefined>): Promise<T> {
    const deadline = Date.now() + ms;
    for (;;) {
      const v = await probe();
      if (v !== undefined) return v;
      const errors = (await wb.errorToasts()).filter((t) => /skydeck/i.test(t));
      if (errors.length) throw new Error(`while waiting for ${what}: error notification: ${errors.join(' | ')}`);
      if (Date.now() > deadline) throw new Error(`timed out after ${ms / 1000} s waiting for ${what}`);
      await wb.page.waitForTimeout(250);
    }
  }

  const clusters = () => wb.pane('Clusters');
  const clusterRow = () => wb.treeRow(clusters(), CLUSTER);
  const jobRow = () => wb.treeRow(clusters(), JOB_LABEL);
  const panelTitle = `${CLUSTER} #1 ui-cancel`;

  /** The log panel's page: the text of its terminal rows and of its status line. */
  async function logPage(): Promise<{ text: string; state: string } | undefined> {
    const frame = await wb.webviewFrame(panelTitle);
    if (!frame) return undefined;
    return frame
      .evaluate(() => ({
        // xterm's DOM renderer: one div per row; spaces may come as no-break spaces.
        text: Array.from(document.querySelectorAll('.xterm-rows > div')).map((r) => (r.textContent ?? '').replace(/\u00a0/g, ' ')).join('\n'),
        state: document.querySelector('.status .state')?.textContent ?? '',
      }))
      .catch(() => undefined); // the frame navigated or went away meanwhile: look again
  }

  before(async () => {
    rmSync(join(SCREENSHOT_DIR, SHOTS), { recursive: true, force: true }); // only this run's files count
    wb = await Workbench.open({ files: [{ from: 'test/vscode/fixtures/ui/ui-cancel.sky.yaml', to: TASK_FILE }], log: note });
  });

  beforeEach(function () {
    // The steps build on each other: after one fails, the rest would only time out.
    if (failed && !independent.has(this.currentTest?.title ?? '')) {
      console.error(`      !!! SKIPPING "${this.currentTest?.title}": it needs the step that failed above`);
      this.skip();
    }
  });

  afterEach(async function () {
    if (this.currentTest?.state !== 'failed' || !wb) return;
    if (!independent.has(this.currentTest.title)) failed = true;
    const path = await wb.screenshot(`${SHOTS}/failed-${this.currentTest.title.replace(/\W+/g, '-').slice(0, 60)}`).catch(() => '(none)');
    console.log(`      screenshot: ${path}`);
    if (wb.console.length) console.log(`      console:\n${wb.console.slice(-40).map((l) => `        ${l}`).join('\n')}`);
  });

  after(async () => {
    if (!wb) return;
    // The screenshots are for a person reading a failed run, not a check: a failed capture
    // already fails the step that took it.
    if (shots.length) note(`${shots.length} screenshots in ${join(SCREENSHOT_DIR, SHOTS)}`);
    if (process.env.SKYDECK_TEST_VERBOSE === '1') console.log(wb.console.map((l) => `        ${l}`).join('\n'));
    // Safety net for a run that failed before Down: the product's own teardown first (the CLI,
    // on the same workspace state), then whatever still runs from this workspace is ended.
    if (existsSync(join(wb.workspace, '.skydeck', 'local', CLUSTER))) {
      note(`cleanup: ${CLUSTER} is still there; skydeck down`);
      const r = spawnSync(process.execPath, [join(ROOT, 'dist/cli.js'), 'down', CLUSTER, '-y'], {
        cwd: wb.workspace,
        env: { ...process.env, SKYDECK_WORKSPACE: wb.workspace },
        encoding: 'utf8',
        timeout: 60_000,
        killSignal: 'SIGKILL',
      });
      note(`cleanup: skydeck down exited ${r.status ?? r.signal}: ${(r.stdout + r.stderr).trim().split('\n').slice(-3).join(' / ')}`);
    }
    const left = leftovers();
    if (left.length) {
      note(`cleanup: killing ${left.length} leftover process(es): ${left.map((p) => `${p.pid} ${p.cmd}`).join(' | ')}`);
      await killProcesses(left);
    }
    const workspace = wb.workspace;
    await wb.close();
    // Now code-server's own tree is gone too; nothing may still use the workspace.
    const after = processesUsing(workspace);
    if (after.length) {
      note(`cleanup: killing ${after.length} process(es) still using the workspace after code-server stopped`);
      await killProcesses(after);
    }
    note('browser closed, code-server stopped');
  });

  it('opens the workspace with the task YAML and shows the Clusters view from the Skydeck activity-bar icon', async () => {
    await wb.page.locator('.part.sidebar .explorer-folders-view').getByText(TASK_FILE, { exact: true }).waitFor({ timeout: 60_000 });
    await wb.openViewContainer('Skydeck');
    await clusters().locator('.welcome-view-content').getByText('No clusters yet.').waitFor({ timeout: 60_000 });
    await wb.waitUntilActive('skydeck.skydeck', () => existsSync(join(wb.workspace, '.skydeck', '.gitignore')), 60_000);
    await shot('01-clusters-view');
  });

  it('runs "Skydeck: Launch Task" from the palette, answering its prompts; the cluster node appears, then the job', async () => {
    await wb.startCommand('Skydeck: Launch Task');
    // No task YAML is open in an editor, so the command asks which one (a pick over the workspace).
    await wb.answerPrompt('Skydeck: pick a task YAML', 'ui-cancel', TASK_FILE);
    // No cluster exists yet, so it asks straight for a new cluster's name.
    const nameBox = wb.page.locator('.quick-input-widget .quick-input-title', { hasText: 'Skydeck: name the new cluster' });
    await nameBox.waitFor({ timeout: 30_000 });
    const suggested = await wb.page.locator('.quick-input-widget .quick-input-box input').inputValue();
    assert.equal(suggested, 'ui-cancel', 'the suggested cluster name comes from the task name');
    await shot('02-name-cluster');
    await wb.answerPrompt('Skydeck: name the new cluster', CLUSTER);
    note(`launching on ${CLUSTER}`);

    // Launching on the local cloud bootstraps the agent (python3); on 2 shared cores this can take a while.
    await until(`the cluster node "${CLUSTER}"`, 120_000, async () => ((await clusterRow().count()) > 0 ? true : undefined));
    note('cluster node shown');
    await shot('03-cluster-node');
    await until(`the job node "${JOB_LABEL}" under ${CLUSTER}`, 120_000, async () => ((await jobRow().count()) > 0 ? true : undefined));
    note(`job node shown (${await jobStatus(jobRow())})`);
    await shot('04-job-node');
  });

  it("opens the job's log panel, which shows the job's output", async () => {
    // One editor tab per job, titled "cluster #id name".
    await wb.page.locator('.part.editor .tabs-container .tab', { hasText: panelTitle }).waitFor({ timeout: 60_000 });
    const page = await until(`"${OUTPUT}" in the log panel`, 90_000, async () => {
      const p = await logPage();
      return p?.text.includes(OUTPUT) ? p : undefined;
    });
    assert.ok(!page.text.includes('$((6 * 7))'), 'the panel shows the output, not the script');
    logRows = page.text.split('\n');
    // The panel's status line follows the job: it is running (sleeping) now.
    const running = await until('the log panel status RUNNING', 60_000, async () => {
      const p = await logPage();
      return p && /RUNNING/i.test(p.state) ? p.state : undefined;
    });
    note(`log panel: output shown, status "${running}"`);
    await shot('05-log-panel');
  });

  it('cancels the running job from its context menu (Cancel Job); the node turns CANCELLED', async () => {
    // The menu offers Cancel Job only while the job runs (contextValue job:running|pending).
    await until('the job node RUNNING', 60_000, async () => ((await jobStatus(jobRow())) === 'RUNNING' ? true : undefined));
    // The leak checks below must be able to see the job: its `sleep` runs outside code-server's tree.
    await until("the job's sleep among the workspace's processes", 30_000, async () =>
      leftovers().some((p) => /\bsleep 600\b/.test(p.cmd)) ? true : undefined,
    );
    await wb.contextMenu(jobRow(), 'Cancel Job', () => shot('06-context-menu'));
    // Polls until the job reaches a terminal state (a row being re-rendered reads as unknown).
    const status = await until('the job node CANCELLED', 60_000, async () => {
      const s = await jobStatus(jobRow());
      return ['CANCELLED', 'SUCCEEDED', 'FAILED', 'FAILED_DRIVER'].includes(s) ? s : undefined;
    });
    assert.equal(status, 'CANCELLED', 'the job node after Cancel Job');
    // What a screen reader announces for the row (its tooltip: status, then reason).
    const aria = (await jobRow().first().getAttribute('aria-label')) ?? '';
    assert.match(aria, /CANCELLED/, `the job row's aria-label: ${JSON.stringify(aria)}`);
    note(`job node CANCELLED (aria-label ${JSON.stringify(aria)})`);
    await until('the "cancelled" notification', 30_000, async () =>
      (await wb.toasts()).some((t) => t.includes(`cancelled ${CLUSTER} #1`)) ? true : undefined,
    );
    const state = await until('the log panel status CANCELLED', 60_000, async () => {
      const p = await logPage();
      return p && /CANCELLED/i.test(p.state) ? p.state : undefined;
    });
    note(`log panel status "${state}"`);
    // The job's own processes ended (the agent stays until Down).
    await until("the job's processes to end", 30_000, async () => (leftovers().some((p) => /\bsleep 600\b/.test(p.cmd)) ? undefined : true));
    await shot('07-job-cancelled');
  });

  it('tears the cluster down with "Skydeck: Down (Tear Down) Cluster" and leaves no process behind', async () => {
    const before = leftovers();
    note(`before Down, ${before.length} process(es) outside code-server use the workspace: ${before.map((p) => p.cmd.slice(0, 80)).join(' | ')}`);
    await wb.startCommand('Skydeck: Down (Tear Down) Cluster');
    await wb.answerPrompt('Skydeck: tear down which cluster?', CLUSTER, CLUSTER);
    await wb.dialogButton(`Tear down cluster ${CLUSTER}?`, 'Down', () => shot('08-down-confirm'));
    await until('the Clusters view back to "No clusters yet."', 90_000, async () =>
      (await clusters().locator('.welcome-view-content').getByText('No clusters yet.').isVisible()) ? true : undefined,
    );
    assert.equal(await clusterRow().count(), 0, 'the cluster node is gone');
    assert.ok(!existsSync(join(wb.workspace, '.skydeck', 'local', CLUSTER)), "the local cluster's directory is removed");
    // Outside code-server's own process tree, nothing may still run from this workspace
    // (agent daemon, job drivers, the job): allow a few seconds for them to exit.
    await until('every process of the cluster to exit', 30_000, async () => (leftovers().length === 0 ? true : undefined)).catch((e: Error) => {
      throw new Error(`${e.message}; still running: ${leftovers().map((p) => `${p.pid} ${p.cmd}`).join(' | ')}`);
    });
    note('cluster down, no process left');
    await shot('09-after-down');
  });

  const eolTitle = 'the log panel starts each output line at column 0 (job output ends lines with a bare \\n)';
  independent.add(eolTitle);
  it(eolTitle, function () {
    if (!logRows) {
      console.error(`      !!! SKIPPING "${eolTitle}": the log panel step failed before it read any rows`);
      this.skip();
    }
    // A job's output comes from pipes, not a terminal: lines end in "\n" alone. A terminal
    // emulator moves down on "\n" without returning to column 0 unless told to (xterm's
    // convertEol), so the second line would start where the first ended.
    const second = logRows[1] ?? '';
    assert.ok(
      second.startsWith('ui-cancel output: sleeping until cancelled'),
      `the second output line starts at column ${second.length - second.trimStart().length}, not 0 (rows: ${JSON.stringify(logRows.slice(0, 3).map((r) => r.trimEnd()))})`,
    );
  });

  const noErrorsTitle = 'left no Skydeck error in the extension host log, the console or a notification';
  independent.add(noErrorsTitle);
  it(noErrorsTitle, async () => {
    const logged = wb.extensionHostLog().split('\n').filter((l) => /\[error\]/.test(l) && /skydeck/i.test(l));
    assert.deepEqual(logged, [], 'errors in remoteexthost.log');
    const console = wb.console.filter((l) => /skydeck/i.test(l) && /\b(ERR|error|failed)\b/i.test(l));
    assert.deepEqual(console, [], 'errors in the page console');
    const toasts = (await wb.errorToasts()).filter((t) => /skydeck/i.test(t));
    assert.deepEqual(toasts, [], 'error notifications');
  });
});
