// followManagedLog (core, shared by `jobs logs` and the editor's panel) over a scripted client:
// which cluster's log is read when, the marked line at a move, resuming, and the kept output.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { keptLogDir, readKeptLog, type KeptFrom } from '../../../src/core/managed/keptLogs';
import { followManagedLog, type FollowState, type ManagedJob } from '../../../src/core/managed';

function job(p: Partial<ManagedJob>): ManagedJob {
  return {
    id: 3, name: 'j', submittedAt: 0, status: 'RUNNING', tasks: ['run: x'], envs: {}, taskIndex: 0, recoveryCount: 0, restartsOnErrors: 0,
    launches: 1, clusterName: null, clusterUid: null, agentJobId: null, region: null, lastError: null, startedAt: 1, endedAt: null,
    updatedAt: 0, cancelRequested: false, ...p,
  };
}

/** A client whose job is each of `states` in turn (one per look; the last repeats). */
function scripted(states: ManagedJob[], kept?: Buffer) {
  let i = 0;
  return {
    looks: () => i,
    job: async () => states[Math.min(i++, states.length - 1)],
    keptLog: async () => kept,
  };
}

describe('managed: followManagedLog', () => {
  it('reads each cluster\'s log once, with a marked line at the move, and ends with the job', async () => {
    const a = job({ clusterName: 'j-mj3-1', agentJobId: 1 });
    const b = job({ status: 'RUNNING', clusterName: 'j-mj3-2', agentJobId: 1, recoveryCount: 1, launches: 2 });
    const c = job({ status: 'SUCCEEDED', endedAt: 9 });
    const client = scripted([a, a, job({ status: 'RECOVERING', clusterName: 'j-mj3-1', agentJobId: 1 }), b, b, c]);
    const out: string[] = [];
    const reads: string[] = [];
    const end = await followManagedLog(client, 3, {
      signal: new AbortController().signal, pollMs: 1,
      follow: async (seg, from, onChunk) => {
        reads.push(`${seg.cluster}@${from}`);
        onChunk(Buffer.from(`out of ${seg.cluster}\n`));
      },
      onOutput: (d) => out.push(d.toString()),
      onMarker: (l) => out.push(`[${l}]`),
    });
    assert.equal(end?.status, 'SUCCEEDED');
    assert.deepEqual(reads, ['j-mj3-1@0', 'j-mj3-2@0']);
    assert.deepEqual(out, ['out of j-mj3-1\n', '[--- managed job 3: now on cluster j-mj3-2 (recoveries: 1) ---]', 'out of j-mj3-2\n']);
  });

  it('a stopped follow resumes the same cluster at the next unread byte (the panel\'s Retry)', async () => {
    const a = job({ clusterName: 'j-mj3-1', agentJobId: 4 });
    const state: FollowState = { offset: 0 };
    const first = new AbortController();
    const reads: number[] = [];
    const none = await followManagedLog(scripted([a]), 3, {
      signal: first.signal, state, pollMs: 1, onOutput: () => undefined, onMarker: () => assert.fail('no move happened'),
      follow: async (_s, from, onChunk) => {
        reads.push(from);
        onChunk(Buffer.from('12345'));
        first.abort();
      },
    });
    assert.equal(none, undefined, 'aborted: no end');
    assert.deepEqual(state, { segment: 'j-mj3-1:4', offset: 5, finished: false, readFailed: false });
    const end = await followManagedLog(scripted([a, job({ status: 'FAILED' })]), 3, {
      signal: new AbortController().signal, state, pollMs: 1, onOutput: () => undefined, onMarker: () => assert.fail('same cluster: no marker'),
      follow: async (_s, from) => void reads.push(from),
    });
    assert.equal(end?.status, 'FAILED');
    assert.deepEqual(reads, [0, 5]);
  });

  it('a head that never answers again (preempted) does not hold the follow: it moves on once the job has', async () => {
    const a = job({ clusterName: 'j-mj3-1', agentJobId: 1 });
    const b = job({ clusterName: 'j-mj3-2', agentJobId: 1, recoveryCount: 1 });
    let looks = 0;
    const client = { job: async () => (++looks < 3 ? a : looks < 6 ? b : job({ status: 'SUCCEEDED' })) };
    const reads: string[] = [];
    const end = await followManagedLog(client, 3, {
      signal: new AbortController().signal, pollMs: 1, onOutput: () => undefined, onMarker: () => undefined,
      follow: (seg, _f, _c, signal) => {
        reads.push(seg.cluster);
        // The first cluster's read hangs until aborted, as a reconnecting read of a gone head does.
        return seg.cluster.endsWith('-1') ? new Promise((r) => signal.addEventListener('abort', () => r(), { once: true })) : Promise.resolve();
      },
    });
    assert.equal(end?.status, 'SUCCEEDED');
    assert.deepEqual(reads, ['j-mj3-1', 'j-mj3-2']);
  });

  it('an ended job with nothing to follow live: the kept output; no such job: an error', async () => {
    const out: Buffer[] = [];
    const kept = Buffer.from([0xff, 0x0d, 0x0a]);
    const end = await followManagedLog(scripted([job({ status: 'CANCELLED' })], kept), 3, {
      signal: new AbortController().signal, onOutput: (d) => out.push(d), onMarker: () => undefined, follow: async () => assert.fail('no cluster'),
    });
    assert.equal(end?.status, 'CANCELLED');
    assert.deepEqual(Buffer.concat(out), kept);
    await assert.rejects(followManagedLog({ job: async () => undefined }, 9, {
      signal: new AbortController().signal, onOutput: () => undefined, onMarker: () => undefined, follow: async () => undefined,
    }), /there is no managed job 9/);
  });

  it('a read that fails as the ended job\'s cluster is torn down: the kept output from the byte reached, once it is kept', async () => {
    const ended = job({ status: 'SUCCEEDED', clusterName: 'j-mj3-1', agentJobId: 1, endedAt: 9 });
    const forgotten = job({ status: 'SUCCEEDED', endedAt: 9 });
    let looks = 0;
    const asked: unknown[] = [];
    const client = {
      // The controller keeps the output, then tears the cluster down, then forgets it.
      job: async () => (++looks < 4 ? ended : forgotten),
      keptLog: async (_id: number, from?: { cluster: string; offset: number }) => {
        asked.push(from);
        return looks < 3 ? undefined : Buffer.from('line 1\nline 2\n').subarray(from?.offset ?? 0);
      },
    };
    const out: string[] = [];
    const end = await followManagedLog(client, 3, {
      signal: new AbortController().signal, pollMs: 1, onOutput: (d) => out.push(d.toString()), onMarker: () => assert.fail('one cluster'),
      follow: async (_s, _f, onChunk) => {
        onChunk(Buffer.from('line 1\n'));
        throw new Error('no cluster j-mj3-1');
      },
    });
    assert.equal(end?.status, 'SUCCEEDED');
    assert.equal(out.join(''), 'line 1\nline 2\n', 'each byte once');
    assert.deepEqual(asked.at(-1), { cluster: 'j-mj3-1', offset: 7 });
  });

  it('a read that ended whole does not wait for the teardown', async () => {
    const ended = job({ status: 'SUCCEEDED', clusterName: 'j-mj3-1', agentJobId: 1, endedAt: 9 });
    const t0 = Date.now();
    const end = await followManagedLog({ job: async () => ended, keptLog: async () => undefined }, 3, {
      signal: new AbortController().signal, pollMs: 1, onOutput: () => undefined, onMarker: () => undefined, follow: async () => undefined,
    });
    assert.equal(end?.status, 'SUCCEEDED');
    assert.ok(Date.now() - t0 < 5_000, `${Date.now() - t0} ms`);
  });
});

describe('managed: followManagedLog, kept output across a recovery (real kept files)', () => {
  const run = async (states: ManagedJob[], kept: Record<string, string>, live: Record<string, { out: string; fail?: boolean }>) => {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-followkept-'));
    fs.mkdirSync(keptLogDir(home, 3), { recursive: true });
    for (const [n, body] of Object.entries(kept)) fs.writeFileSync(path.join(keptLogDir(home, 3), n), body);
    let i = 0;
    const client = { job: async () => states[Math.min(i++, states.length - 1)], keptLog: async (id: number, from?: KeptFrom) => readKeptLog(home, id, from) };
    const out: string[] = [];
    try {
      await followManagedLog(client, 3, {
        signal: new AbortController().signal, pollMs: 1,
        onOutput: (d) => out.push(d.toString()), onMarker: (l) => out.push(`[${l}]\n`),
        follow: async (seg, from, onChunk) => {
          const l = live[seg.cluster];
          onChunk(Buffer.from(l.out).subarray(from));
          if (l.fail) throw new Error(`no cluster ${seg.cluster}`);
        },
      });
    } finally {
      fs.rmSync(home, { recursive: true, force: true });
    }
    return out.join('');
  };

  it('a read that failed as a recovery tore its cluster down: the rest of that cluster, kept, before the next one', async () => {
    const a = job({ clusterName: 'j-mj3-1', agentJobId: 1 });
    const b = job({ clusterName: 'j-mj3-2', agentJobId: 1, recoveryCount: 1, launches: 2 });
    const out = await run([a, b, b, job({ status: 'SUCCEEDED', endedAt: 9, launches: 2 })],
      { '1-j-mj3-1.log': 'one 1\none 2\n', '2-j-mj3-2.log': 'two\n' },
      { 'j-mj3-1': { out: 'one 1\n', fail: true }, 'j-mj3-2': { out: 'two\n' } });
    assert.equal(out, 'one 1\none 2\n[--- managed job 3: now on cluster j-mj3-2 (recoveries: 1) ---]\ntwo\n', 'each byte once, in order');
  });

  it('a cluster the job passed through between two looks: its kept output, marked, before the next one', async () => {
    const a = job({ clusterName: 'j-mj3-1', agentJobId: 1 });
    const c = job({ clusterName: 'j-mj3-3', agentJobId: 1, recoveryCount: 2, launches: 3 });
    const out = await run([a, c, c, job({ status: 'SUCCEEDED', endedAt: 9, launches: 3 })],
      { '1-j-mj3-1.log': 'one\n', '2-j-mj3-2.log': 'two\n', '3-j-mj3-3.log': 'three\n' },
      { 'j-mj3-1': { out: 'one\n' }, 'j-mj3-3': { out: 'three\n' } });
    assert.equal(out, 'one\n--- managed job 3: now on cluster j-mj3-2 (launch 2) ---\ntwo\n[--- managed job 3: now on cluster j-mj3-3 (recoveries: 2) ---]\nthree\n');
  });
});
