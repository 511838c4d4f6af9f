"""Unit tests of queued jobs' staging (agent/skydeck_agent_lib/stage.py) on a real jobs.db and
real files: the races a serve test cannot time.

Run by stage.test.ts: python3 -m unittest discover -s test/unit/agent -p 'test_stage.py'.
"""
import os
import random
import shutil
import sys
import tempfile
import unittest

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', '..')
AGENT = os.path.join(ROOT, 'agent', 'skydeck_agent.py')
sys.path.insert(0, os.path.join(ROOT, 'agent'))
from skydeck_agent_lib import cancel, daemon_ctl, db, jobs, stage  # noqa: E402
from skydeck_agent_lib.context import Ctx  # noqa: E402


class CancelledWhileStaged(unittest.TestCase):
    def setUp(self):
        self.base = tempfile.mkdtemp(prefix='skydeck-stage-')
        self.ctx = Ctx(self.base, AGENT)
        # The daemon lock held here: submits start no daemon in this test.
        self.lock = daemon_ctl.open_lock(self.ctx.paths)
        self.assertTrue(daemon_ctl.try_lock(self.lock))
        jobs.configure(self.ctx, {'capacity': {'cpus': 1}})
        jobs.submit(self.ctx, {'run': 'sleep 600', 'resources': {'cpus': 1}})
        self.job = jobs.submit(self.ctx, {'run': 'echo never', 'setup': 'true', 'resources': {'cpus': 1}})['job_id']
        self.real = stage.stage_one
        self.other = Ctx(self.base, AGENT)  # a cancelling client, connected while the layout is whole
        self.other.conn()

    def tearDown(self):
        stage.stage_one = self.real
        cancel.cancel(self.ctx, {'all': True, 'grace': 0})  # the blocker's processes end (SIGKILL)
        self.ctx.close()
        self.other.close()
        os.close(self.lock)
        shutil.rmtree(self.base, ignore_errors=True)

    def _cancel_then_stage(self, paths, job_id, spec):
        """A cancel commits after the stager read the spec (its discard finds nothing yet)."""
        conn = self.other.conn()
        with db.write_txn(conn):
            conn.execute("UPDATE jobs SET status = 'CANCELLED' WHERE job_id = ?", (job_id,))
        return self.real(paths, job_id, spec)

    def test_files_written_then_a_failure_still_go_for_a_cancelled_job(self):
        # logs/ is a file: the scripts are written, then the log dir fails (as ENOSPC would).
        shutil.rmtree(os.path.join(self.base, 'logs'), ignore_errors=True)
        open(os.path.join(self.base, 'logs'), 'w').close()
        stage.stage_one = self._cancel_then_stage
        self.assertEqual(stage._stage_queued(self.ctx.conn(), self.ctx.paths, self.job), 0)
        self.assertFalse(os.path.exists(self.ctx.paths.job_dir(self.job)), 'nothing of a cancelled job stays')

    def test_files_of_a_job_cancelled_meanwhile_go(self):
        stage.stage_one = self._cancel_then_stage
        self.assertEqual(stage._stage_queued(self.ctx.conn(), self.ctx.paths, self.job), 1)
        self.assertFalse(os.path.exists(self.ctx.paths.job_dir(self.job)))
        self.assertFalse(os.path.exists(self.ctx.paths.log_dir(self.job)))

    def test_a_queued_job_keeps_what_was_written_before_a_failure(self):
        shutil.rmtree(os.path.join(self.base, 'logs'), ignore_errors=True)
        open(os.path.join(self.base, 'logs'), 'w').close()
        self.assertEqual(stage._stage_queued(self.ctx.conn(), self.ctx.paths, self.job), 0)
        self.assertEqual(sorted(os.listdir(self.ctx.paths.job_dir(self.job))), ['run.sh', 'setup.sh'])


class InLine(unittest.TestCase):
    """place, summed in SQLite, says what next_in_line lists (serve asks it on each submit)."""

    def test_place_agrees_with_next_in_line(self):
        rng = random.Random(7)
        for cap in (1, 3, 8):
            base = tempfile.mkdtemp(prefix='skydeck-stage-')
            ctx = Ctx(base, AGENT)
            lock = daemon_ctl.open_lock(ctx.paths)
            self.assertTrue(daemon_ctl.try_lock(lock))
            try:
                jobs.configure(ctx, {'capacity': {'cpus': cap}})
                jobs.submit(ctx, {'run': 'sleep 600', 'resources': {'cpus': cap}})
                ids = [jobs.submit(ctx, {'run': 'true', 'resources': {'cpus': rng.choice([0.5, 1, 2]) if cap > 2 else 1}})['job_id']
                       for _ in range(40)]
                conn = ctx.conn()
                for limit in (stage.LIMIT, 3):
                    line = stage.next_in_line(conn, limit)
                    self.assertTrue(line, 'the head at least')
                    self.assertEqual([j for j in ids if stage.place(conn, j, limit) is True], line, (cap, limit))
                # The memo of serve's staging: set by a job past the line, never by one not queued.
                self.assertIsNone(stage.place(conn, ids[0] - 1), 'the blocker runs: not queued')
                after = stage.AfterSubmit()
                after.stage(ctx, ids[0] - 1)  # the blocker: running
                self.assertIsNone(after.beyond)
                after.stage(ctx, ids[-1])
                self.assertEqual(after.beyond, ids[-1])
            finally:
                cancel.cancel(ctx, {'all': True, 'grace': 0})
                ctx.close()
                os.close(lock)
                shutil.rmtree(base, ignore_errors=True)


if __name__ == '__main__':
    unittest.main()
