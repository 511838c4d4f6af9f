// "Did you mean" suggestions for misspelled field names and values.

/** Edit distance where swapping two adjacent characters counts as one edit. */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) => {
    const row = new Array<number>(cols).fill(0);
    row[0] = i;
    return row;
  });
  for (let j = 0; j < cols; j++) d[0][j] = j;
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[a.length][b.length];
}

/**
 * The candidate closest to `word`, or undefined when none is close enough to be a likely typo.
 * Case and `-` vs `_` are ignored; ties go to the earlier candidate.
 */
export function nearest(word: string, candidates: readonly string[]): string | undefined {
  const norm = (s: string) => s.toLowerCase().replace(/-/g, '_');
  const w = norm(word);
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const c of candidates) {
    const dist = editDistance(w, norm(c));
    if (dist < bestDistance) {
      best = c;
      bestDistance = dist;
    }
  }
  if (best === undefined) return undefined;
  // Allow about one edit per three characters, at least one, at most three.
  const allowed = Math.min(3, Math.max(1, Math.floor(w.length / 3)));
  return bestDistance <= allowed ? best : undefined;
}
