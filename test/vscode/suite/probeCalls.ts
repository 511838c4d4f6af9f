// Runs a Skydeck command the way a menu or the palette does and reads back, from the extension's
// test probe (src/ui/testProbe.ts), how that call ended and which notifications it showed: a
// command that threw also returns undefined, so the return value alone proves nothing.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { SkydeckApi } from '../../../src/extension';
import type { CommandOutcome, Notice } from '../../../src/ui/testProbe';

export interface Call<T> {
  result: T | undefined;
  outcome: CommandOutcome;
  notices: Notice[];
}

export async function call<T>(api: SkydeckApi, command: string, ...args: unknown[]): Promise<Call<T>> {
  const probe = api.testProbe;
  assert.ok(probe, 'activate() exposes testProbe under SKYDECK_TEST=1');
  const seen = { commands: probe.commands.length, notices: probe.notices.length };
  const result = await vscode.commands.executeCommand<T>(command, ...args);
  const outcome = probe.commands.slice(seen.commands).filter((c) => c.command === command).pop();
  assert.ok(outcome, `the probe recorded no end of ${command}`);
  return { result, outcome, notices: probe.notices.slice(seen.notices) };
}

/** Asserts the call ended ok, naming its error otherwise. */
export function assertOk(c: Call<unknown>): void {
  assert.equal(c.outcome.outcome, 'ok', `${c.outcome.command} ended ${c.outcome.outcome}: ${c.outcome.message ?? ''}`);
}

/**
 * A call that waits on UI (a quick pick, a notification's button): `close` runs the workbench
 * command that dismisses it, again until the call has ended.
 */
export async function callClosing<T>(api: SkydeckApi, close: string, command: string, ...args: unknown[]): Promise<Call<T>> {
  let ended = false;
  const pending = call<T>(api, command, ...args).finally(() => (ended = true));
  const deadline = Date.now() + 30_000;
  while (!ended && Date.now() < deadline) {
    await vscode.commands.executeCommand(close);
    await new Promise((r) => setTimeout(r, 300));
  }
  assert.ok(ended, `${command} did not end after ${close}`);
  return pending;
}
