"""Unit tests of the batch start of job drivers (agent/skydeck_agent_lib/launcher.py) through the
waiter's --launch mode (native/skydeck_launch.c): real processes, real pipes.

Run by launcher.test.ts: python3 -m unittest discover -s test/unit/agent -p 'test_launcher.py'.
"""
import os
import platform
import shutil
import signal
import stat
import tempfile
import time
import unittest

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', '..')
import sys  # noqa: E402
sys.path.insert(0, os.path.join(ROOT, 'agent'))
from skydeck_agent_lib import launcher, procs  # noqa: E402

WAITER = os.path.join(ROOT, 'agent', 'bin', 'skydeck-wait-' + platform.machine())
HOSTILE = 'a \'b\' "c" $(touch pwned) `id`\nnext line; $HOME'


def _read(path):
    with open(path) as f:
        return f.read()


def _wait_for(pred, what, timeout=10.0):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if pred():
            return
        time.sleep(0.01)
    raise AssertionError('timed out waiting for ' + what)


class LaunchMany(unittest.TestCase):
    def setUp(self):
        self.assertTrue(os.access(WAITER, os.X_OK),
                        WAITER + ' is missing: build it with `node scripts/build-waiter.mjs` (needs gcc)')
        self.dir = tempfile.mkdtemp(prefix='skydeck-launch-')
        self.pids = []

    def tearDown(self):
        for pid in self.pids:
            try:
                os.killpg(pid, signal.SIGKILL)
            except OSError:
                pass
        shutil.rmtree(self.dir, ignore_errors=True)

    def log(self, name):
        return os.path.join(self.dir, name + '.log')

    def started(self, out, keys):
        for key in keys:
            self.assertIsInstance(out[key], tuple, out[key])
            self.pids.append(out[key][0])

    def test_each_job_is_a_detached_session_with_its_log_and_exact_environment(self):
        items = [(str(k), ['/bin/sh', '-c', 'printf "%s|" "$V"; read x; echo "[$x]"; exec sleep 30'],
                  {'V': HOSTILE + str(k), 'PATH': os.environ['PATH']}, self.log(str(k))) for k in range(3)]
        out = launcher.launch_many(WAITER, items, None)
        self.started(out, ['0', '1', '2'])
        for key, (pid, start) in out.items():
            st = procs.proc_stat(pid)
            self.assertEqual((st.sid, st.pgid), (pid, pid), 'its own session and group')
            self.assertEqual(st.start, start, 'the start time of the very process')
            self.assertNotEqual(st.ppid, os.getpid(), 'never a child of the agent')
            _wait_for(lambda: _read(self.log(key)).endswith('[]\n'), 'the log of job ' + key)
            self.assertEqual(_read(self.log(key)), HOSTILE + key + '|[]\n', 'stdin is empty')
            self.assertEqual(stat.S_IMODE(os.stat(self.log(key)).st_mode), 0o600)
        self.assertFalse(os.path.exists(os.path.join(self.dir, 'pwned')))

    def test_a_log_is_appended_to_never_truncated(self):
        with open(self.log('a'), 'w') as f:
            f.write('before\n')
        out = launcher.launch_many(WAITER, [('a', ['/bin/sh', '-c', 'echo after'], {}, self.log('a'))], None)
        self.started(out, ['a'])
        _wait_for(lambda: _read(self.log('a')) == 'before\nafter\n', 'the appended line')

    def test_failures_are_per_job_and_the_rest_start(self):
        def prepare(key):
            if key == 'boom':
                raise OSError('no cgroup today')
            return {'ok': (['/bin/true'], {}, 'marker'), 'nul': (['/bin/true'], {'X': 'a\0b'}),
                    'noexec': ([os.path.join(self.dir, 'missing')], {}),
                    'nolog': (['/bin/true'], {})}[key]
        logs = {'nolog': os.path.join(self.dir, 'gone', 'x.log')}
        items = [(k, None, None, logs.get(k, self.log(k))) for k in ('boom', 'nul', 'noexec', 'nolog', 'ok')]
        out = launcher.launch_many(WAITER, items, prepare)
        self.assertEqual(out['boom'], 'could not prepare the job: no cgroup today')
        self.assertRegex(out['nul'], r'^could not start the driver: .*NUL byte')
        self.assertEqual(out['noexec'], 'could not start the driver: [Errno 2] No such file or directory')
        self.assertEqual(out['nolog'],
                         'could not start the driver: cannot open its log: [Errno 2] No such file or directory')
        self.assertEqual(len(out['ok']), 3)
        self.assertEqual(out['ok'][2], 'marker', "prepare's note comes back")
        self.pids.append(out['ok'][0])

    def test_a_batch_larger_than_both_pipes_neither_side_blocks(self):
        env = {'BIG': 'x' * 20000}
        items = [(str(k), ['/bin/true'], env, self.log('many')) for k in range(300)]
        t0 = time.time()
        out = launcher.launch_many(WAITER, items, None)
        self.assertEqual(sorted(out), sorted(str(k) for k in range(300)))
        self.assertTrue(all(isinstance(v, tuple) for v in out.values()), [v for v in out.values() if not isinstance(v, tuple)][:3])
        self.assertLess(time.time() - t0, 30)

    def test_a_launcher_that_cannot_start_leaves_the_batch_to_forked_intermediates(self):
        out = launcher.launch_many(os.path.join(self.dir, 'no-launcher'),
                                   [('x', ['/bin/sh', '-c', 'sleep 30'], {}, self.log('x'))], None)
        self.started(out, ['x'])
        self.assertEqual(procs.proc_stat(out['x'][0]).sid, out['x'][0])

    def test_a_launcher_that_dies_mid_batch_fails_the_jobs_it_never_answered(self):
        fake = os.path.join(self.dir, 'fake-launcher')
        with open(fake, 'w') as f:
            f.write('#!/bin/sh\nhead -c 8 >/dev/null\nexit 3\n')
        os.chmod(fake, 0o700)
        items = [(str(k), ['/bin/true'], {'PAD': 'y' * 70000}, self.log('d')) for k in range(4)]
        out = launcher.launch_many(fake, items, None)
        self.assertEqual(set(out.values()), {'could not start the driver: the launcher ended first (status 768)'})

    def test_a_malformed_record_ends_the_launcher_without_starting_anything(self):
        import subprocess
        for data in (b'zzzzzzzz', b'00000004abc', b'00000003a\0b', b'0000'):
            r = subprocess.run([WAITER, '--launch'], input=data, stdout=subprocess.PIPE, timeout=10)
            self.assertEqual((r.returncode, r.stdout), (2, b''), data)
        r = subprocess.run([WAITER, '--launch'], input=b'', stdout=subprocess.PIPE, timeout=10)
        self.assertEqual((r.returncode, r.stdout), (0, b''), 'no record: nothing to do')


if __name__ == '__main__':
    unittest.main()
