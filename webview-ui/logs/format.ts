import type { JobStatusView } from '../../src/ui/logs/protocol';

export type StatusKind = 'waiting' | 'running' | 'succeeded' | 'failed' | 'cancelled';

export function statusKind(status: string): StatusKind {
  if (status === 'RUNNING' || status === 'SETTING_UP') return 'running';
  if (status === 'SUCCEEDED') return 'succeeded';
  if (status === 'CANCELLED') return 'cancelled';
  if (status.startsWith('FAILED')) return 'failed';
  return 'waiting';
}

const ICONS: Record<StatusKind, string> = { waiting: '○', running: '●', succeeded: '✓', failed: '✗', cancelled: '⊘' };

export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${String(s % 60).padStart(2, '0')}s`;
  const h = Math.floor(m / 60);
  return `${h}h ${String(m % 60).padStart(2, '0')}m`;
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v.toFixed(v < 10 ? 1 : 0)} ${units[i]}`;
}

/** The status line's parts: state, duration, then exit code and reason when there are any. */
export function statusParts(s: JobStatusView, nowSeconds: number): { kind: StatusKind; icon: string; parts: string[] } {
  const kind = statusKind(s.status);
  // No status yet: the source reports it when it can (the final one always comes).
  const parts = [s.status || 'Following'];
  if (s.startedAt !== null) parts.push(formatDuration((s.endedAt ?? nowSeconds) - s.startedAt));
  if (s.exitCode !== null && s.exitCode !== undefined) parts.push(`exit code ${s.exitCode}`);
  if (s.reason) parts.push(s.reason);
  return { kind, icon: ICONS[kind], parts };
}
