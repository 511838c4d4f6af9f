import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { AgentFixture, baseProcs, CliResult, dumpDb, Json, rowsById, waitStatus, waitUntil } from './helpers';

describe('agent command line', function () {
  // Mostly one-shot interpreter starts: slow on a loaded 2-core machine.
  this.timeout(120000);
  const fx = new AgentFixture();
  beforeEach(() => fx.setup());
  afterEach(() => fx.cleanup());

  it('version, submit (spec on stdin), queue, status, cancel answer one JSON object each', async () => {
    const v = await fx.cli(['version']);
    assert.equal(v.protocol, 2);
    assert.equal(fs.existsSync(path.join(fx.base, 'jobs.db')), false, 'version does not create state');
    const s = await fx.cli(['submit'], { name: 'cli', run: 'sleep 30', resources: { cpus: 0.25 } });
    assert.equal(s.job_id, 1);
    const q = await fx.cli(['queue']);
    assert.equal(q.full, true);
    assert.deepEqual(q.columns.slice(0, 4), ['job_id', 'name', 'user', 'status']);
    const row = rowsById(q).get(1);
    assert.equal(row.name, 'cli');
    assert.equal(row.cpus, 0.25);
    const st = await fx.cli(['status']);
    assert.equal(st.counts.RUNNING + st.counts.SETTING_UP + st.counts.PENDING, 1);
    const delta = await fx.cli(['queue', '--since', String(q.cursor), '--db-id', q.db_id]);
    assert.equal(delta.full, false);
    const c = await fx.cli(['cancel', '1', '--grace', '0.5']);
    assert.deepEqual(c.cancelled, [1]);
    const after = await fx.cli(['queue', '--since', String(q.cursor), '--db-id', q.db_id]);
    assert.deepEqual(after.rows.map((r: Json[]) => [r[0], r[3]]), [[1, 'CANCELLED']]);
    // A cursor from another database (recreated base dir) gets the full table back.
    const other = await fx.cli(['queue', '--since', String(q.cursor), '--db-id', 'not-this-db']);
    assert.equal(other.full, true);
    assert.equal(other.rows.length, 1);
  });

  it('bad input gets a clear error object and a non-zero exit, and the database is untouched', async () => {
    // The very first call is malformed: nothing is created at all.
    const first = await fx.run(['submit'], { input: '{"run": "true",' });
    assert.equal(first.code, 1);
    assert.equal(first.json!.ok, false);
    assert.equal(first.json!.error!.code, 'bad_json');
    assert.equal(fs.existsSync(path.join(fx.base, 'jobs.db')), false);

    await fx.cli(['submit'], { run: 'true' });
    await fx.cli(['submit'], { run: 'exit 2', name: 'second' });
    const c = fx.serve();
    await waitStatus(c, 1, 'SUCCEEDED');
    await waitStatus(c, 2, 'FAILED');
    const before = await dumpDb(fx.base);

    const cases: { args: string[]; input?: string; code: string; match?: RegExp }[] = [
      { args: ['submit'], input: 'not json at all', code: 'bad_json' },
      { args: ['submit'], input: '', code: 'bad_json' },
      { args: ['submit'], input: '[1,2]', code: 'invalid_spec' },
      { args: ['submit'], input: '{"run":"true","resources":{"cpus":-1}}', code: 'invalid_spec', match: /cpus must be >= 0/ },
      { args: ['submit'], input: '{"run":"true","resources":{"memory":-0.5}}', code: 'invalid_spec' },
      { args: ['submit'], input: '{"run":"true","resources":{"accelerators":{"L4":-1}}}', code: 'invalid_spec' },
      { args: ['submit'], input: '{"run":"true","resources":{"accelerators":"L4:x"}}', code: 'invalid_spec' },
      { args: ['submit'], input: '{"run":"true","resources":{"cpus":NaN}}', code: 'bad_json' },
      { args: ['submit'], input: JSON.stringify({ run: 'true', name: 'n'.repeat(257) }), code: 'invalid_spec', match: /longer than 256/ },
      { args: ['submit'], input: JSON.stringify({ run: 'true', name: 'n'.repeat(5_000_000) }), code: 'invalid_spec' },
      { args: ['submit'], input: '{"run":"true","envs":{"BAD NAME":"x"}}', code: 'invalid_spec' },
      { args: ['submit'], input: '{"run":"true","envs":{"A":"nul\\u0000"}}', code: 'invalid_spec' },
      { args: ['submit'], input: '{"run":"true","envs":{"A":null}}', code: 'invalid_spec' },
      { args: ['submit'], input: '{"run":"true","bogus":1}', code: 'invalid_spec', match: /bogus/ },
      { args: ['submit'], input: '{"run":"true","name":"\\ud800"}', code: 'invalid_spec', match: /surrogate/ },
      { args: ['submit'], input: '{"run":"true","envs":{"A":"\\udfff"}}', code: 'invalid_spec' },
      { args: ['submit'], input: '{"run":"true","num_nodes":0}', code: 'invalid_spec' },
      { args: ['submit'], input: '{"run":"true","num_nodes":2}', code: 'unschedulable' },
      { args: ['submit'], input: '{"run":"true","resources":{"cpus":100000}}', code: 'unschedulable' },
      { args: ['cancel', '999'], code: 'not_found', match: /999/ },
      { args: ['cancel', '1', '999'], code: 'not_found' },
      { args: ['cancel'], code: 'invalid_argument' },
      { args: ['cancel', '1', '--grace', '-3'], code: 'invalid_argument' },
      { args: ['cancel', 'x'], code: 'usage' },
      { args: ['queue', '--since', '-1'], code: 'invalid_argument' },
      { args: ['queue', '--bogus'], code: 'usage' },
      { args: ['frobnicate'], code: 'usage' },
    ];
    // Independent failing calls: run them 8 at a time.
    const results: CliResult[] = [];
    for (let i = 0; i < cases.length; i += 8) {
      results.push(...(await Promise.all(cases.slice(i, i + 8).map((k) => fx.run(k.args, { input: k.input ?? '' })))));
    }
    for (const [i, k] of cases.entries()) {
      const r = results[i];
      const what = `${k.args.join(' ')} <<< ${String(k.input).slice(0, 60)}`;
      assert.notEqual(r.code, 0, what);
      assert.equal(r.json?.ok, false, `${what}: exit ${r.code} signal ${r.signal}: ${r.stdout} ${r.stderr.slice(-500)}`);
      assert.equal(r.json!.error!.code, k.code, `${what}: ${JSON.stringify(r.json)}`);
      assert.ok(r.json!.error!.message.length > 0);
      if (k.match) assert.match(r.json!.error!.message, k.match);
    }
    // serve: the same errors, as error objects carrying the request id.
    const bad = await c.request('submit', { run: 'true', name: 'x'.repeat(300) }, 'big-name');
    assert.deepEqual([bad.id, bad.ok, bad.error!.code], ['big-name', false, 'invalid_spec']);
    const unk = await c.request('cancel', { job_ids: [12345] });
    assert.equal(unk.error!.code, 'not_found');
    const neg = await c.request('configure', { capacity: { cpus: -2 } });
    assert.equal(neg.error!.code, 'invalid_spec');
    const logs = await fx.run(['logs', '4242']);
    assert.equal(logs.code, 1);
    assert.equal(JSON.parse(logs.stderr).error.code, 'not_found');
    assert.equal(await dumpDb(fx.base), before, 'database unchanged');
  });

  it('200 concurrent submits from 65 processes: 200 distinct ids, none lost, none left in INIT', async () => {
    await fx.cli(['configure'], { capacity: { cpus: 1 } });
    await fx.cli(['submit'], { run: 'sleep 60', resources: { cpus: 1 } });
    // 50 one-shot CLI processes (20 at a time) race with 15 serve connections that each
    // pipeline 10 submits without waiting: writers in many processes at once.
    const cliIds: number[] = [];
    let next = 0;
    const worker = async () => {
      while (next < 50) {
        const i = next++;
        const r = await fx.cli(['submit'], { name: `cli-${i}`, run: 'true', resources: { cpus: 1 } });
        assert.equal(r.status, 'PENDING');
        cliIds.push(r.job_id);
      }
    };
    const serveBatch = async (k: number) => {
      const c = fx.serve();
      const rs = await Promise.all(
        Array.from({ length: 10 }, (_, i) => c.call('submit', { name: `serve-${k}-${i}`, run: 'true', resources: { cpus: 1 } })),
      );
      return rs.map((r: Json) => r.job_id as number);
    };
    const serveIds = (
      await Promise.all([...Array.from({ length: 15 }, (_, k) => serveBatch(k)), ...Array.from({ length: 20 }, worker)])
    ).flat() as number[];
    const ids = [...cliIds, ...serveIds.filter((x) => typeof x === 'number')];
    assert.equal(ids.length, 200);
    assert.equal(new Set(ids).size, 200);
    const rows = rowsById(await fx.cli(['queue']));
    assert.equal(rows.size, 201);
    const names = new Set<string>();
    for (const id of ids) {
      assert.equal(rows.get(id).status, 'PENDING');
      names.add(rows.get(id).name);
    }
    assert.equal(names.size, 200);
    assert.equal([...rows.values()].filter((r) => r.status === 'INIT').length, 0);
    // 65 callers that each made sure a liveness daemon runs: exactly one does.
    const daemons = await waitUntil(
      () => {
        const d = baseProcs(fx.base).filter((p) => fs.readFileSync(`/proc/${p}/cmdline`, 'utf8').includes('_daemon'));
        return d.length === 1 ? d : null;
      },
      3000,
      'one daemon',
    );
    assert.equal(daemons.length, 1);
  });
});
