// Skydeck against a peer (task-spooler) on one workload: interleaved repetitions, medians, ratio.
import { sleep } from '../test/unit/agent/helpers';

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

function emit(figure: string, value: number, unit: string, extra: Record<string, unknown>): void {
  process.stdout.write(JSON.stringify({ figure, value: Number(value.toFixed(4)), unit, ...extra }) + '\n');
}

export const REPS = Math.max(3, Number(process.env.BENCH_REPS || 3));
export const r4 = (x: number) => Number(x.toFixed(4));

/**
 * One workload on Skydeck and on task-spooler, REPS times each, interleaved (Skydeck, tsp,
 * Skydeck, ...) so a busy moment of the machine falls on both; medians are compared.
 */
export async function versus<T>(ours: () => Promise<T>, theirs: () => Promise<T>, reps = REPS): Promise<{ ours: T[]; theirs: T[] }> {
  const out = { ours: [] as T[], theirs: [] as T[] };
  for (let i = 0; i < reps; i++) {
    out.ours.push(await ours());
    await sleep(200);
    out.theirs.push(await theirs());
    await sleep(200);
  }
  return out;
}

export function compare(figure: string, unit: string, ours: number[], theirs: number[], lowerIsBetter: boolean, extra: Record<string, unknown> = {}): void {
  const a = median(ours);
  const b = median(theirs);
  emit(`agent.${figure}`, a, unit, { reps: ours.length, all: ours.map(r4), tsp: r4(b), tsp_all: theirs.map(r4), ...extra });
  emit(`agent.${figure.replace(/_(s|mb|jobs)$/, '')}_vs_tsp`, lowerIsBetter ? b / a : a / b, 'x', { note: '> 1: Skydeck better', skydeck: r4(a), tsp: r4(b) });
}

