"""Unit tests of a launch's autostop hold (agent/skydeck_agent_lib/autostop.py `hold_seconds`):
busy while it lasts, idle time counted from its end, bad values refused.

Run by autostopHold.test.ts: python3 -m unittest discover -s test/unit/agent -p 'test_autostop_hold.py'.
"""
import os
import shutil
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', '..', '..', 'agent'))
from skydeck_agent_lib import autostop, db  # noqa: E402
from skydeck_agent_lib.errors import AgentError  # noqa: E402
from skydeck_agent_lib.paths import Paths  # noqa: E402


class Ctx(object):
    """What check() needs of the daemon's context; the command is recorded, not run."""

    def __init__(self, base):
        self.paths = Paths(base)
        self._conn = db.connect(self.paths)
        self.ran = []

    def conn(self):
        return self._conn


class Hold(unittest.TestCase):
    def setUp(self):
        self.base = tempfile.mkdtemp(prefix='skydeck-hold-')
        self.ctx = Ctx(self.base)
        self._run = autostop._run_detached
        autostop._run_detached = lambda ctx, argv: ctx.ran.append(argv)

    def tearDown(self):
        autostop._run_detached = self._run
        self.ctx.conn().close()
        shutil.rmtree(self.base, ignore_errors=True)

    def configure(self, **extra):
        cfg = autostop.parse(dict({'idle_minutes': 0, 'command': ['true'], 'wait_for': 'jobs'}, **extra))
        db.set_meta(self.ctx.conn(), 'autostop', cfg)
        return cfg

    def test_hold_until_is_configure_time_plus_hold(self):
        cfg = self.configure(hold_seconds=1800)
        self.assertAlmostEqual(cfg['hold_until'], cfg['set_at'] + 1800, places=3)
        self.assertIsNone(self.configure()['hold_until'])
        self.assertIsNone(self.configure(hold_seconds=0)['hold_until'])

    def test_busy_while_held_even_with_zero_idle_minutes(self):
        cfg = self.configure(hold_seconds=600)
        t = cfg['set_at']
        for now in (t, t + 1, t + 599):
            self.assertIsNone(autostop.last_activity(self.ctx.conn(), cfg, now))
            self.assertTrue(autostop.check(self.ctx, now))
        self.assertEqual(self.ctx.ran, [])
        st = autostop.state(self.ctx.conn(), t + 10)
        self.assertEqual((st['fires_in'], st['idle_seconds']), (None, None))
        self.assertAlmostEqual(st['held_until'], t + 600, places=3)

    def test_idle_time_counts_from_the_hold_end(self):
        cfg = self.configure(idle_minutes=1, hold_seconds=600)
        end = cfg['hold_until']
        self.assertEqual(autostop.last_activity(self.ctx.conn(), cfg, end), end)
        st = autostop.state(self.ctx.conn(), end + 20)
        self.assertIsNone(st['held_until'])
        self.assertAlmostEqual(st['fires_in'], 40, places=1)
        autostop.check(self.ctx, end + 59)
        self.assertEqual(self.ctx.ran, [], 'fired before hold + idle minutes')
        autostop.check(self.ctx, end + 60)
        self.assertEqual(self.ctx.ran, [['true']])
        autostop.check(self.ctx, end + 90)
        self.assertEqual(len(self.ctx.ran), 1, 'once per idle period')

    def test_a_job_that_ends_after_the_hold_restarts_the_clock(self):
        cfg = self.configure(hold_seconds=60)
        ended = cfg['hold_until'] + 30
        self.ctx.conn().execute("INSERT INTO jobs (status, submitted_at, ended_at, spec) VALUES ('SUCCEEDED', ?, ?, '{}')",
                                (cfg['set_at'] + 5, ended))
        self.assertEqual(autostop.last_activity(self.ctx.conn(), cfg, ended + 1), ended)

    def test_no_hold_behaves_as_before(self):
        cfg = self.configure()
        self.assertEqual(autostop.last_activity(self.ctx.conn(), cfg, cfg['set_at'] + 1), cfg['set_at'])
        self.assertIsNone(autostop.state(self.ctx.conn(), cfg['set_at'])['held_until'])
        autostop.check(self.ctx, cfg['set_at'])
        self.assertEqual(self.ctx.ran, [['true']])

    def test_bad_hold_values_are_refused(self):
        for bad in (-1, 86401, '600', True, None, [60], float('nan')):
            with self.assertRaises(AgentError) as e:
                autostop.parse({'idle_minutes': 5, 'command': ['true'], 'hold_seconds': bad})
            self.assertIn('autostop.hold_seconds must be a number of seconds between 0 and 86400', str(e.exception))
        self.assertIsNotNone(autostop.parse({'idle_minutes': 5, 'command': ['true'], 'hold_seconds': 86400})['hold_until'])


if __name__ == '__main__':
    unittest.main()
