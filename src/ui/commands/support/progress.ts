import * as vscode from 'vscode';
import type { OpsContext } from '../../../core/ops';
import type { CommandDeps } from '../command';

/** The user cancelled before the point of no return. */
export class CancelledByUser extends Error {}

/**
 * Runs an operation under a progress notification that shows each ctx.progress step.
 * When cancellable, the notification's Cancel (or `extraCancel`, which tests use) aborts the
 * AbortSignal handed to `fn`, which passes it down (launch: the provision loop terminates
 * what it created, with proof). Reporting a step never throws: an exception out of a
 * progress callback would leave the core mid-way with instances behind.
 * `committed()` marks the point after which cancelling no longer stops anything (the job is
 * already queued).
 */
export function withOpsProgress<T>(
  services: Pick<CommandDeps, 'ops' | 'log'>,
  title: string,
  opts: { cancellable: boolean; extraCancel?: vscode.CancellationToken },
  fn: (ops: OpsContext, committed: () => void, signal: AbortSignal) => Promise<T>,
): Promise<T> {
  return Promise.resolve(
    vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title, cancellable: opts.cancellable }, async (progress, token) => {
      let past = false;
      const abort = new AbortController();
      const subs: vscode.Disposable[] = [];
      if (opts.cancellable) {
        for (const t of [token, opts.extraCancel]) {
          if (!t) continue;
          if (t.isCancellationRequested) abort.abort();
          subs.push(t.onCancellationRequested(() => {
            if (!past) abort.abort();
          }));
        }
      }
      try {
        const base = await services.ops();
        if (abort.signal.aborted) throw new CancelledByUser(`${title}: cancelled`);
        // A per-call context (same store and connections), so two operations at once each report
        // into their own notification.
        const ops: OpsContext = {
          ...base,
          progress: (step) => {
            try {
              base.progress(step);
              progress.report({ message: step });
            } catch (e) {
              services.log.warn(`progress report failed: ${(e as Error).message}`);
            }
          },
        };
        return await fn(ops, () => (past = true), abort.signal);
      } catch (e) {
        if (abort.signal.aborted && !past && !(e instanceof CancelledByUser)) throw new CancelledByUser(`${title}: cancelled (${(e as Error).message})`);
        throw e;
      } finally {
        subs.forEach((s) => s.dispose());
      }
    }),
  );
}

export function graceSeconds(): number {
  return vscode.workspace.getConfiguration('skydeck').get<number>('cancelGraceSeconds') ?? 10;
}
