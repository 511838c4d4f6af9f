// The workloads of bench/agent.ts, run on task-spooler: each returns its figure (no printing);
// agent.ts interleaves them with Skydeck's and prints both and the ratio.
import { isAlive, sleep, waitUntil } from '../test/unit/agent/helpers';
import { pssMb, SleepWatch } from './procWatch';
import { commOf, ppidOf, Tsp } from './tsp';

const now = () => Number(process.hrtime.bigint()) / 1e6; // ms

async function withTsp<T>(slots: number, fn: (t: Tsp) => Promise<T>): Promise<T> {
  const t = new Tsp();
  try {
    t.start(slots);
    return await fn(t);
  } finally {
    await t.stop();
  }
}

/** The tsp client process of every running job: the one whose child is the payload. */
function wrappersOf(t: Tsp): number[] {
  const procs = t.procs();
  const parents = new Set(procs.map(ppidOf));
  return procs.filter((p) => p !== t.serverPid && parents.has(p) && commOf(p) === 'tsp');
}

/** 500 submits (each a `tsp` call, its interface) queued behind a job holding the one slot. */
export async function tspSubmitRate(n = 500): Promise<number> {
  return withTsp(1, async (t) => {
    await t.submit();
    const t0 = now();
    for (let i = 0; i < n; i++) await t.submit();
    return n / ((now() - t0) / 1000);
  });
}

/**
 * 64 queued jobs released by ending a blocker that holds all 64 slots (`tsp -k`), timed until
 * the user command of every one runs; then PSS per running job: the server shared by the 64
 * plus each job's own tsp process (the payload, bash and sleep, is not counted).
 */
export async function tspRelease64(queuedMs = 0): Promise<{ seconds: number; pssMb: number; wrapperMb: number; supervisorMb: number }> {
  return withTsp(64, async (t) => {
    const blockWatch = new SleepWatch('1000', t.needle);
    const blocker = await t.submit(64);
    for (let i = 0; i < 64; i++) await t.submit();
    await waitUntil(() => blockWatch.count() >= 1, 10000, 'tsp blocker runs', 5);
    await sleep(queuedMs);
    const watch = new SleepWatch('1000', t.needle);
    const t0 = now();
    await t.run(['-k', String(blocker)]);
    await waitUntil(() => watch.count() >= 64, 20000, '64 tsp jobs alive', 5);
    const seconds = (now() - t0) / 1000;
    await sleep(300); // the blocker's client finished and left
    const wrappers = wrappersOf(t);
    if (wrappers.length !== 64) throw new Error(`tsp: found ${wrappers.length} job processes, expected 64`);
    const wrapperMb = wrappers.reduce((a, p) => a + pssMb(p), 0) / wrappers.length;
    const supervisorMb = pssMb(t.serverPid);
    return { seconds, pssMb: wrapperMb + supervisorMb / 64, wrapperMb, supervisorMb };
  });
}

/** 10 running jobs cancelled (`tsp -k` each, as its interface offers) until all processes exited. */
export async function tspCancel10(): Promise<number> {
  return withTsp(10, async (t) => {
    const watch = new SleepWatch('1000', t.needle);
    const ids: number[] = [];
    for (let i = 0; i < 10; i++) ids.push(await t.submit());
    await waitUntil(() => watch.count() >= 10, 10000, '10 tsp jobs alive', 5);
    await sleep(50);
    const pids = t.procs().filter((p) => p !== t.serverPid);
    const t0 = now();
    for (const id of ids) await t.run(['-k', String(id)]);
    await waitUntil(() => pids.every((p) => !isAlive(p)), 10000, 'tsp jobs exited', 1);
    return (now() - t0) / 1000;
  });
}
