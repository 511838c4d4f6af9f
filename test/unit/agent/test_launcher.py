"""Unit tests of the batch start of job drivers (agent/skydeck_agent_lib/launcher.py) through the
waiter's --launch mode (native/skydeck_launch.c): real processes, real pipes.

Run by launcher.test.ts: python3 -m unittest discover -s test/unit/agent -p 'test_launcher.py'.
"""
import json
import os
import platform
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
import unittest

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', '..')
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

    def fake(self, body):
        path = os.path.join(self.dir, 'fake-launcher')
        with open(path, 'w') as f:
            f.write('#!/bin/sh\n' + body + '\n')
        os.chmod(path, 0o700)
        return path

    def test_jobs_the_launcher_never_took_fail_at_once(self):
        # Each record is larger than the pipe: none can be taken by a launcher already gone.
        items = [(str(k), ['/bin/true'], {'PAD': 'y' * 70000}, self.log('d')) for k in range(4)]
        out = launcher.launch_many(self.fake('exit 3'), items, None)
        self.assertEqual(out, dict((str(k), 'could not start the driver: the launcher ended first') for k in range(4)))

    def test_jobs_handed_over_but_never_answered_are_left_to_the_liveness_sweep(self):
        # It took them and died (SIGKILL) without a word: each may have started, so none is
        # called failed (the sweep fails a claimed job without a driver, emptying its cgroup).
        items = [(str(k), ['/bin/true'], {}, self.log('d')) for k in range(4)]
        self.assertEqual(launcher.launch_many(self.fake('cat >/dev/null; kill -9 $$'), items, None), {})

    def test_an_answer_for_a_job_never_handed_over_is_ignored(self):
        items = [('1', ['/bin/true'], {}, self.log('d'))]
        out = launcher.launch_many(self.fake('cat >/dev/null; echo "2 999 5"; echo "1 0 E13 exec"'), items, None)
        self.assertEqual(out, {'1': 'could not start the driver: [Errno 13] Permission denied'})

    def test_descriptors_and_blocked_signals_of_the_agent_never_reach_a_job(self):
        leak = os.open(os.devnull, os.O_RDONLY)
        os.set_inheritable(leak, True)
        old = signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGTERM, signal.SIGUSR1])
        try:
            out = launcher.launch_many(WAITER, [('j', ['/bin/sh', '-c', 'exec sleep 30'], {}, self.log('j'))], None)
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, old)
            os.close(leak)
        self.started(out, ['j'])
        pid = out['j'][0]
        _wait_for(lambda: _read('/proc/%d/comm' % pid) == 'sleep\n', 'the exec of sleep')
        self.assertEqual(sorted(os.listdir('/proc/%d/fd' % pid)), ['0', '1', '2'])
        blocked = [l for l in _read('/proc/%d/status' % pid).splitlines() if l.startswith('SigBlk:')]
        self.assertEqual(blocked, ['SigBlk:\t0000000000000000'])

    def test_a_launcher_that_refuses_its_input_at_once_leaves_the_batch_to_intermediates(self):
        old = self.fake('echo "usage: skydeck-wait ..." >&2; exit 2')  # a waiter before --launch
        made = os.path.join(self.dir, 'made')  # a file: the intermediates are forked copies

        def prepare(key):
            with open(made, 'a') as f:
                f.write(key)
            return ['/bin/sh', '-c', 'exec sleep 30'], {}, 'marker'
        items = [(k, None, None, self.log(k)) for k in ('p', 'q')]
        out = launcher.launch_many(old, items, prepare)
        self.started(out, ['p', 'q'])
        self.assertEqual([v[2] for v in out.values()], ['marker', 'marker'])
        self.assertEqual(sorted(_read(made)), ['p', 'p', 'q', 'q'], 'prepared again for the intermediates')

    def test_a_key_longer_than_the_launcher_takes_is_a_bug_said_at_once(self):
        with self.assertRaises(ValueError):
            launcher.launch_many(WAITER, [('\u00e9' * 40, ['/bin/true'], {}, self.log('k'))], None)

    def test_an_environment_name_exec_would_misread_is_refused(self):
        for env in ({'A=B': 'c'}, {'': 'x'}):
            out = launcher.launch_many(WAITER, [('k', ['/bin/true'], env, self.log('k'))], None)
            self.assertRegex(out['k'], r'^could not start the driver: an environment variable name')

    def test_a_value_the_locale_cannot_encode_fails_that_job_alone(self):
        # An agent under a non-UTF-8 locale: here ASCII (C, with UTF-8 mode off).
        script = (
            'import json, sys\n'
            'sys.path.insert(0, %r)\n'
            'from skydeck_agent_lib import launcher\n'
            'items = [(k, ["/bin/sleep", "30"], {"G": v}, %r + k) for k, v in '
            '(("a", "plain"), ("b", "caf\\u00e9"), ("c", "plain"))]\n'
            'print(json.dumps(launcher.launch_many(%r, items, None)))\n'
        ) % (os.path.join(ROOT, 'agent'), os.path.join(self.dir, 'log-'), WAITER)
        env = dict(os.environ, LC_ALL='C')
        res = subprocess.run([sys.executable, '-E', '-X', 'utf8=0', '-c', script], env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, timeout=30)
        self.assertEqual(res.returncode, 0, res.stderr.decode(errors='replace'))
        out = json.loads(res.stdout)
        for key in ('a', 'c'):
            self.assertIsInstance(out[key], list, out[key])
            self.pids.append(out[key][0])
        self.assertRegex(out['b'], r"^could not start the driver: .*can't encode")

    def test_a_malformed_record_ends_the_launcher_without_starting_anything(self):
        for data in (b'zzzzzzzz', b'0000000g' + b'k\0' * 60, b'0000000A' + b'k\0' * 60, b'00000004abc',
                     b'00000003a\0b', b'0000'):
            r = subprocess.run([WAITER, '--launch'], input=data, stdout=subprocess.PIPE, timeout=10)
            self.assertEqual((r.returncode, r.stdout), (2, b''), data)
        r = subprocess.run([WAITER, '--launch'], input=b'', stdout=subprocess.PIPE, timeout=10)
        self.assertEqual((r.returncode, r.stdout), (0, b''), 'no record: nothing to do')


if __name__ == '__main__':
    unittest.main()
