// How a job's status is said in words: the tree row's description and the job-end notification.
// No vscode: unit-tested as it is.

export interface JobStatusFacts {
  status: string;
  exitCode: number | null;
  reason: string | null;
}

/** "SUCCEEDED", "FAILED (exit 1)", "FAILED_SETUP (exit 2)", "FAILED_DRIVER", "RUNNING". */
export function statusWords(j: JobStatusFacts): string {
  if ((j.status === 'FAILED' || j.status === 'FAILED_SETUP') && j.exitCode !== null) return `${j.status} (exit ${j.exitCode})`;
  return j.status;
}

/** "2m 3s", "1h 4m", "12s": how long the job ran (so far). */
export function formatDuration(secs: number): string {
  const s = Math.max(0, Math.round(secs));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  return h ? `${h}h ${m}m` : m ? `${m}m ${s % 60}s` : `${s}s`;
}

export interface JobRowFacts extends JobStatusFacts {
  startedAt: number | null;
  endedAt: number | null;
  user?: string | null;
}

/** The tree row's description: status in words first, then how long, then who ("RUNNING · 2m 3s · ana"). */
export function jobDescription(j: JobRowFacts, now: number): string {
  const ran = j.startedAt ? formatDuration((j.endedAt ?? now) - j.startedAt) : '';
  return [statusWords(j), ran, j.user ?? ''].filter(Boolean).join(' · ');
}

export interface EndNotice {
  level: 'info' | 'warning' | 'error';
  message: string;
}

/** Reasons come from the node: one line, bounded, so a notification stays a notification. */
function shortReason(reason: string | null): string {
  const line = (reason ?? '').replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
  return line.length > 300 ? `${line.slice(0, 299)}…` : line;
}

/** What the job-end notification says; `what` names the job ("dev #3 train"). */
export function endNotice(what: string, j: JobStatusFacts): EndNotice {
  const why = shortReason(j.reason);
  switch (j.status) {
    case 'SUCCEEDED':
      return { level: 'info', message: `Skydeck: ${what} succeeded.` };
    case 'CANCELLED':
      return { level: 'warning', message: `Skydeck: ${what} was cancelled.` };
    case 'FAILED_DRIVER':
      return { level: 'error', message: `Skydeck: ${what} ended FAILED_DRIVER${why ? `: ${why}` : ''}.` };
    case 'FAILED_SETUP':
      return { level: 'error', message: `Skydeck: ${what} failed in setup${j.exitCode !== null ? ` (exit ${j.exitCode})` : ''}.` };
    case 'FAILED':
      // The agent's reason for a failed run only repeats the exit code ("run exited with code 1").
      return { level: 'error', message: `Skydeck: ${what} failed${j.exitCode !== null ? ` (exit ${j.exitCode})` : why ? `: ${why}` : ''}.` };
    default:
      return { level: 'warning', message: `Skydeck: ${what} ended ${j.status}${why ? `: ${why}` : ''}.` };
  }
}
