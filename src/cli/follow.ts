import type { LogsFinal } from '../core/jobs';
import { EXIT, type CliIO } from './io';

/**
 * Ctrl-C while following detaches: the job keeps running, as with SkyPilot. Before the job is
 * submitted, `early` (if given) takes the interrupt instead, e.g. to cancel provisioning.
 */
export function detachOnInterrupt(io: CliIO, hint: () => string, early?: () => boolean): { signal: AbortSignal; dispose(): void } {
  const ac = new AbortController();
  const onInt = () => {
    if (early?.()) return;
    process.removeListener('SIGINT', onInt);
    io.err(`\nDetached; the job keeps running. ${hint()}\n`);
    ac.abort();
  };
  process.on('SIGINT', onInt);
  return { signal: ac.signal, dispose: () => process.removeListener('SIGINT', onInt) };
}

/** The CLI's exit code for a followed job: 0 success, the job's own code for FAILED, else 1. */
export function exitCodeFor(final: LogsFinal | undefined, io: CliIO, label: string): number {
  if (!final || !final.terminal) return EXIT.ok; // detached: the job goes on
  const reason = final.reason ? `: ${final.reason}` : '';
  if (final.status === 'SUCCEEDED') {
    io.err(`✓ ${label} succeeded.\n`);
    return EXIT.ok;
  }
  io.err(`✗ ${label} ${final.status}${final.exit_code !== null ? ` (exit code ${final.exit_code})` : ''}${reason}\n`);
  if (final.status === 'FAILED' && final.exit_code && final.exit_code > 0 && final.exit_code < 256) return final.exit_code;
  return EXIT.failed;
}

export function submittedLine(jobId: number, cluster: string, detached: boolean): string {
  return detached
    ? `Job ${jobId} submitted to ${cluster}. Follow its output with: skydeck logs ${cluster} ${jobId}\n`
    : `Job ${jobId} submitted to ${cluster}; streaming its output (Ctrl-C detaches, the job keeps running).\n`;
}
