// What the in-host tests read to assert on behaviour the user sees: every notification shown,
// how every command ended, and every log panel opened. Recorded only under the test runner (SKYDECK_TEST=1).
//
// Kept on globalThis under a registry symbol, not in a module variable: this file is bundled into
// both dist/extension.js and dist/extension-core.js, and both copies must fill the same lists.

export interface Notice {
  level: 'error' | 'warning' | 'info';
  message: string;
  /** The buttons offered ("Show Logs", "Re-run"), when there are any. */
  items?: string[];
}

export interface CommandOutcome {
  command: string;
  /**
   * ok: returned; dismissed: the user closed a prompt; cancelled: the user stopped it; error: it
   * threw; refused: not run in an untrusted workspace.
   */
  outcome: 'ok' | 'dismissed' | 'cancelled' | 'error' | 'refused';
  message?: string;
}

/** A log panel as opened; read-only views of its state. */
export interface LogPanelSeen {
  title: string;
  cluster: string;
  jobId: number;
  /** The job's log as the panel received it so far (what Save writes). */
  text(): string;
  /** Bytes the page reported written to its terminal. */
  acknowledged(): number;
}

export interface TestProbe {
  readonly notices: Notice[];
  readonly commands: CommandOutcome[];
  readonly logPanels: LogPanelSeen[];
  /** The Clusters status bar item's text as last drawn ('' while hidden). */
  statusBar: string;
  /**
   * A test's click on a notification's button: a string is returned as the user's pick instead of
   * showing the notification (undefined: shown as usual).
   */
  answer?: (notice: Notice) => string | undefined;
}

const KEY = Symbol.for('skydeck.testProbe');

/** The shared lists under the test runner; undefined in normal use (nothing is recorded). */
export function testProbe(): TestProbe | undefined {
  if (process.env.SKYDECK_TEST !== '1') return undefined;
  const g = globalThis as { [KEY]?: TestProbe };
  return (g[KEY] ??= { notices: [], commands: [], logPanels: [], statusBar: '' });
}
