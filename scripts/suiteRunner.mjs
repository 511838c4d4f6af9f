// Runs a test suite (a command that ends its output with "N passed, N failed[, N skipped]") as
// its own process group, so that whatever it leaves behind can be ended with it. A suite that
// overruns its time limit, or prints its result and then does not exit (a leaked handle), or
// leaves processes behind, is ended (SIGTERM, then SIGKILL to its group and every descendant)
// and counted as a failure, with its name. Used by run-tests.mjs and vscode-test/run-all.mjs.
import { spawn } from 'node:child_process';
import { processesOf, stopTree } from './procTree.mjs';

export const RESULT_LINE = /^(\d+) passed, (\d+) failed(?:, (\d+) skipped)?$/gm;

let interruptedBy;
/** The signal that interrupted a suite run (SIGINT, SIGTERM, SIGHUP), if one did. */
export function interrupted() {
  return interruptedBy;
}

/**
 * suite: {name, cmd, args, env?, cwd?, timeoutMs?, exitAfterResultMs?}. Resolves with
 * {passed, failed, skipped, code, failures} (failures: the suite's "FAILED: …" lines); never rejects. `graceMs`: SIGTERM → SIGKILL, and how long
 * a finished suite's leftovers get to go by themselves. `output` gets the suite's stdout,
 * `errors` its stderr (default: ours).
 */
export function runSuite(suite, { log = (s) => console.log(s), output = (d) => process.stdout.write(d), errors, graceMs = 5000 } = {}) {
  return new Promise((resolve) => {
    const child = spawn(suite.cmd, suite.args, {
      cwd: suite.cwd, env: suite.env ?? process.env, detached: true, stdio: ['ignore', 'pipe', errors ? 'pipe' : 'inherit'],
    });
    child.stderr?.on('data', errors);
    const pgid = child.pid;
    let tail = '';
    let partial = ''; // the unfinished last line, while gathering FAILED: lines
    const failures = [];
    let reason; // why we ended it, if we did
    let stopping = Promise.resolve();
    const timers = [];
    const later = (ms, f) => ms && timers.push(setTimeout(f, ms));
    const stop = (why) => {
      if (reason) return;
      reason = why;
      log(`!!! suite "${suite.name}" ${why}: ending its process group (counted as 1 failure)`);
      stopping = stopTree(pgid, graceMs, (n, pids) => log(`!!! suite "${suite.name}": ${n} process(es) ignored SIGTERM; SIGKILL (${pids.join(' ')})`));
    };
    const onSignal = (sig) => {
      interruptedBy ??= sig;
      stop(`interrupted by ${sig}`);
    };
    const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'];
    for (const s of signals) process.on(s, onSignal);

    later(suite.timeoutMs, () => stop(`did not finish within ${Math.round(suite.timeoutMs / 1000)} s`));
    // Armed while the result line is the last thing the suite printed (a test's own output may
    // quote such a line mid-run: more output after it disarms the timer).
    let exitTimer;
    const LAST_IS_RESULT = new RegExp(`(?:^|\\n)${RESULT_LINE.source.slice(1, -1)}\\s*$`);
    child.stdout.on('data', (d) => {
      output(d);
      tail = (tail + d.toString()).slice(-8192);
      const lines = (partial + d.toString()).split('\n');
      partial = lines.pop().slice(-4096);
      for (const l of lines) if (l.startsWith('FAILED: ')) failures.push(l);
      if (!suite.exitAfterResultMs) return;
      const last = LAST_IS_RESULT.test(tail);
      if (last && !exitTimer) {
        exitTimer = setTimeout(() => stop(`printed its result but did not exit within ${Math.round(suite.exitAfterResultMs / 1000)} s (a leaked handle or process)`), suite.exitAfterResultMs);
        timers.push(exitTimer);
      } else if (!last && exitTimer) {
        clearTimeout(exitTimer);
        exitTimer = undefined;
      }
    });

    let exit; // {code, signal} of the suite's own process
    let done = false;
    const finish = async () => {
      if (done) return;
      done = true;
      for (const t of timers) clearTimeout(t);
      child.stdout.destroy();
      child.stderr?.destroy();
      await stopping;
      // Anything still in its group (or below it) now is a leftover: give it the grace period
      // to exit on its own, then end it — a suite that leaks processes has failed.
      let left = leftovers(pgid);
      const until = Date.now() + graceMs;
      while (left.length && Date.now() < until) {
        await new Promise((r) => setTimeout(r, 100));
        left = leftovers(pgid);
      }
      if (left.length) {
        stop(`left ${left.length} process(es) running (${left.join(' ')})`);
        await stopping;
      }
      for (const s of signals) process.off(s, onSignal);
      const r = count(suite.name, exit?.code ?? (exit?.signal ? 1 : 0), tail, Boolean(reason), log);
      if (reason) failures.push(`FAILED: suite "${suite.name}" ${reason}`);
      resolve({ ...r, failures });
    };
    child.on('error', (e) => {
      log(`!!! could not start ${suite.cmd}: ${e.message}`);
      exit ??= { code: 1 };
      void finish();
    });
    child.on('exit', (code, signal) => {
      exit = { code, signal };
      // Its output pipe stays open while a descendant holds it: wait a little, then end them.
      later(graceMs, () => stop('exited but its processes kept its output open'));
    });
    child.on('close', () => void finish());
  });
}

function leftovers(pgid) {
  return processesOf(pgid, pgid);
}

/** The suite's counts from its last result line; a crash or an ending by us is a failure. */
function count(name, code, tail, ended, log) {
  const m = [...tail.matchAll(RESULT_LINE)].pop();
  if (!m) {
    log(`!!! suite "${name}" ended (exit ${code}) without a result line: counted as 1 failure`);
    return { passed: 0, failed: 1, skipped: 0, code };
  }
  const r = { passed: Number(m[1]), failed: Number(m[2]), skipped: Number(m[3] ?? 0), code };
  if (ended) r.failed += 1;
  else if (code !== 0 && r.failed === 0) {
    log(`!!! suite "${name}" exited ${code} with no failed test: counted as 1 failure`);
    r.failed += 1;
  }
  return r;
}
