#!/usr/bin/env node
// npm run test:leaks: the provision loop's leak tests at full size — the historical-leak
// scenarios, the fast-check property over 500 fault schedules, 200 kill -9 runs (each killed
// after a cloud call) — then the figures as JSON lines: provision.leaks (must be 0), where
// the kills landed, and the time Down adds to confirm.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runSuite } from './suiteRunner.mjs';

const root = path.dirname(path.dirname(new URL(import.meta.url).pathname));
const summary = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-leaks-')), 'summary.jsonl');
const env = {
  ...process.env,
  LEAKS_SUMMARY: summary,
  PROVISION_SCHEDULES: process.env.PROVISION_SCHEDULES ?? '500',
  KILL_RUNS: process.env.KILL_RUNS ?? '200',
};
const started = Date.now();
// Its own process group with a time limit (suiteRunner.mjs): a hang or a leaked handle ends it
// as a failure instead of hanging the run.
const mocha = await runSuite({
  name: 'provision leak tests',
  cmd: 'npx',
  args: ['mocha', '--no-config', '--node-option', 'import=tsx', '--extension', 'ts', '--reporter', './test/support/countingReporter.cjs', '--timeout', '900000', 'test/unit/provision/*.test.ts'],
  cwd: root, env, timeoutMs: Number(process.env.SKYDECK_SUITE_TIMEOUT_MIN || 120) * 60_000, exitAfterResultMs: 120_000,
});
const stats = fs.existsSync(summary) ? fs.readFileSync(summary, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l)) : [];
const of = (kind) => stats.filter((s) => s.kind === kind);
const scenarios = of('scenario');
const property = of('property')[0] ?? { schedules: 0, leaks: 0 };
const kills = of('kills')[0] ?? { killed: 0, missed: 0, runs: 0, leaks: 0, liveAfterDown: 0, byStep: {} };
const down = of('downConfirm')[0];
const leaks = scenarios.reduce((n, s) => n + s.leaks, 0) + property.leaks + kills.leaks;
const failedScenarios = scenarios.filter((s) => !s.passed).length;
console.log(JSON.stringify({
  figure: 'provision.leaks', value: leaks, unit: 'instances', scenarios: scenarios.length, failed_scenarios: failedScenarios,
  schedules: property.schedules, seed: property.seed, kills: kills.killed, kill_runs: kills.runs, kills_missed: kills.missed,
  seconds: Math.round((Date.now() - started) / 1000),
}));
// Where the kills landed: the operation running and the last cloud call before death.
console.log(JSON.stringify({ figure: 'provision.kills_by_step', value: kills.byStep ?? {}, unit: 'kills' }));
if (down) console.log(JSON.stringify({ figure: 'provision.down_confirm', value: down.medianMs / 1000, unit: 's', samples: down.samples.length, note: 'fake default delays: 1 s API lag, 3 s shutdown; 1 s polls' }));
process.exit(mocha.failed === 0 && mocha.code === 0 && leaks === 0 ? 0 : 1);
