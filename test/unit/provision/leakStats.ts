// Figures for scripts/test-leaks.mjs: each provision test appends one JSON line to the file
// named by LEAKS_SUMMARY (when set), which the script adds up.
import * as fs from 'node:fs';

export function recordStat(stat: Record<string, unknown>): void {
  const file = process.env.LEAKS_SUMMARY;
  if (file) fs.appendFileSync(file, JSON.stringify(stat) + '\n');
}
