/** Plain aligned columns, like SkyPilot's tables but without borders. */
export function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (r: string[]) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]))).join('  ').trimEnd();
  return [line(header), ...rows.map(line)].join('\n') + '\n';
}

export function ago(epochSeconds: number | null, now = Date.now() / 1000): string {
  if (!epochSeconds) return '-';
  return `${duration(now - epochSeconds)} ago`;
}

export function duration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m ${s % 60}s`;
  return `${Math.floor(s / 3600)}h ${Math.floor((s % 3600) / 60)}m`;
}
