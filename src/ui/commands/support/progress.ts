import * as vscode from 'vscode';
import type { OpsContext } from '../../../core/ops';
import type { Services } from '../../services';

/** The user cancelled before the point of no return. */
export class CancelledByUser extends Error {}

/**
 * Runs an operation under a progress notification that shows each ctx.progress step.
 * When cancellable, cancelling takes effect at the operation's next step: the step report
 * throws, so nothing after it (e.g. the job submit) happens. `committed()` marks the point
 * after which cancelling no longer stops anything (the job is already queued).
 */
export function withOpsProgress<T>(
  services: Services,
  title: string,
  opts: { cancellable: boolean },
  fn: (ops: OpsContext, committed: () => void) => Promise<T>,
): Promise<T> {
  return Promise.resolve(
    vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title, cancellable: opts.cancellable }, async (progress, token) => {
      let past = false;
      const check = () => {
        if (opts.cancellable && !past && token.isCancellationRequested) throw new CancelledByUser(`${title}: cancelled`);
      };
      const base = await services.ops();
      check();
      // A per-call context (same store and connections), so two operations at once each report
      // into their own notification.
      const ops: OpsContext = {
        ...base,
        progress: (step) => {
          base.progress(step);
          check();
          progress.report({ message: step });
        },
      };
      return fn(ops, () => (past = true));
    }),
  );
}

export function graceSeconds(): number {
  return vscode.workspace.getConfiguration('skydeck').get<number>('cancelGraceSeconds') ?? 10;
}
