"""The watch-mode sh (agent watch.py SCRIPT) on its own: what it execs back into and why;
then daemon_ctl.wake, which must never kill what it wakes.

A fake interpreter records the argv the script execs, so each case shows the reason it
passes on (change / wake / rounds) and that the lock and guard descriptors go with it.
Run from watchSh.test.ts.
"""
import fcntl
import os
import signal
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '../../../agent'))
from skydeck_agent_lib import procs, watch  # noqa: E402


class Kid(object):
    """A forked child, as much of Popen as these tests use."""

    def __init__(self, pid):
        self.pid, self.code = pid, None

    def poll(self):
        if self.code is None:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.code = os.waitstatus_to_exitcode(status)
        return self.code

    def wait(self, timeout=10):
        end = time.time() + timeout
        while self.poll() is None:
            if time.time() > end:
                raise AssertionError('pid %d still runs' % self.pid)
            time.sleep(0.01)
        return self.code

    def send_signal(self, sig):
        os.kill(self.pid, sig)

    def kill(self):
        if self.code is None:
            os.kill(self.pid, signal.SIGKILL)
            self.wait(5)


class WatchSh(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix='skydeck-watch-sh-')
        self.out = os.path.join(self.dir, 'out')
        self.fake = os.path.join(self.dir, 'fakepy')
        with open(self.fake, 'w') as f:
            # It also records the signals it came in ignoring (the next Python's start-up).
            f.write('#!/bin/sh\nPATH=/usr/bin:/bin:$PATH\ngrep SigIgn /proc/$$/status > %s.sig\n'
                    'printf "%%s\\n" "$@" > %s.tmp && mv %s.tmp %s\n' % (self.out, self.out, self.out, self.out))
        os.chmod(self.fake, 0o700)
        self.pidfile = os.path.join(self.dir, 'daemon.pid')
        with open(self.pidfile, 'w') as f:
            f.write('x\n')
        self.wake = os.path.join(self.dir, 'daemon.wake')
        self.kids = []

    def tearDown(self):
        for p in self.kids:
            try:
                p.kill()
                p.wait()
                if getattr(p, 'stdout', None):
                    p.stdout.close()
            except OSError:
                pass
        subprocess.call(['rm', '-rf', self.dir])

    def target(self, name=None):
        """A process to watch; name: its comm (what /proc/PID/stat shows in parentheses)."""
        code = 'import sys,time\n'
        if name:
            code += ('import ctypes\nctypes.CDLL(None).prctl(15, ctypes.c_char_p(%r), 0, 0, 0)\n'
                     % name.encode())
        code += 'sys.stdout.write("ok\\n"); sys.stdout.flush(); time.sleep(60)\n'
        p = subprocess.Popen([sys.executable, '-c', code], stdout=subprocess.PIPE)
        self.kids.append(p)
        self.assertEqual(p.stdout.readline(), b'ok\n')
        return p

    def watcher(self, pairs, rounds=3, interval='0.05', guard=None, path=None):
        """The script with fds 8 (a file standing for the lock) and 9 (a pipe to a guard);
        guard: the process standing for the guard (one of its own by default)."""
        guard = guard or self.target()
        self.guard = (guard.pid, procs.proc_stat(guard.pid).start)
        lock = os.open(os.path.join(self.dir, 'lock'), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC)
        r, w = os.pipe()
        argv = ['/bin/sh', '-c', watch.SCRIPT, watch.NAME, self.fake, '/agent.py', '/base', self.pidfile,
                self.wake, interval, str(rounds), str(self.guard[0]), str(self.guard[1])]
        for pid, start in pairs:
            argv += [str(pid), str(start)]
        # Ignored from the fork on (the child inherits it), as the daemon execs the script.
        old = signal.signal(signal.SIGUSR1, signal.SIG_IGN)
        pid = os.fork()
        if pid:
            signal.signal(signal.SIGUSR1, old)
        if pid == 0:
            try:
                # Above 9 first: either may already sit at 8 or 9 (dup2 onto itself keeps CLOEXEC).
                high = [fcntl.fcntl(f, fcntl.F_DUPFD, 64) for f in (lock, w)]
                os.dup2(high[0], watch.LOCK_FD)
                os.dup2(high[1], watch.GUARD_FD)
                os.execve(argv[0], argv, {'PATH': path or os.environ.get('PATH', '/bin:/usr/bin')})
            finally:
                os._exit(127)
        os.close(lock)
        os.close(w)
        p = Kid(pid)
        self.kids.append(p)
        return p, r

    def result(self, p):
        self.assertEqual(p.wait(10), 0)
        with open(self.out) as f:
            return f.read().split('\n')[:-1]

    def reason(self, argv):
        self.assertEqual(argv[:6], ['-E', '-S', '/agent.py', '--base', '/base', '_daemon'])
        self.assertEqual(argv[6:14], ['--lock-fd', '8', '--guard-fd', '9', '--guard-pid', str(self.guard[0]),
                                      '--guard-start', str(self.guard[1])])
        self.assertEqual(argv[14], '--woke')
        return argv[15]

    def test_alive_drivers_with_odd_names_last_the_rounds(self):
        # comm may hold spaces and ") ": the start time is the 20th field after the LAST ') '.
        a, b = self.target('a) b (c) d'), self.target('x y')
        pairs = [(p.pid, procs.proc_stat(p.pid).start) for p in (a, b)]
        t0 = time.time()
        p, _ = self.watcher(pairs, rounds=4)
        self.assertEqual(self.reason(self.result(p)), 'rounds')
        self.assertGreaterEqual(time.time() - t0, 0.2)

    def test_a_path_without_sleep_does_not_make_it_spin(self):
        # The daemon's environment is its starter's: a driver's report (_done) that finds no
        # daemon starts one with the job's envs, PATH included. The Python daemon needed
        # nothing from PATH; the sh's sleep does. Without it every round ended at once: 30
        # "sleep: not found" lines, a Python start and a sweep, again and again, a core busy
        # and daemon.log growing for as long as the jobs ran.
        a = self.target()
        t0 = time.time()
        p, _ = self.watcher([(a.pid, procs.proc_stat(a.pid).start)], rounds=3, interval='0.5',
                            path='/nonexistent-skydeck-bin')
        self.assertEqual(self.reason(self.result(p)), 'rounds')
        self.assertGreaterEqual(time.time() - t0, 1.4, 'three rounds of 0.5 s, slept')

    def test_a_driver_whose_start_differs_is_a_change(self):
        a, b = self.target(), self.target()
        pairs = [(a.pid, procs.proc_stat(a.pid).start), (b.pid, procs.proc_stat(b.pid).start + 1)]
        p, _ = self.watcher(pairs, rounds=1000)
        self.assertEqual(self.reason(self.result(p)), 'change')

    def test_a_dead_driver_is_a_change(self):
        a, b = self.target(), self.target()
        pairs = [(a.pid, procs.proc_stat(a.pid).start), (b.pid, procs.proc_stat(b.pid).start)]
        p, _ = self.watcher(pairs, rounds=1000)
        time.sleep(0.3)
        self.assertIsNone(p.poll(), 'still watching')
        b.kill()  # not reaped: a zombie counts as gone
        self.assertEqual(self.reason(self.result(p)), 'change')

    def test_a_dead_guard_brings_it_back_for_a_new_one(self):
        a, g = self.target(), self.target()
        p, _ = self.watcher([(a.pid, procs.proc_stat(a.pid).start)], rounds=1000, guard=g)
        time.sleep(0.3)
        self.assertIsNone(p.poll(), 'still watching')
        g.kill()
        self.assertEqual(self.reason(self.result(p)), 'guard')

    def test_the_wake_file_is_a_wake(self):
        a = self.target()
        p, _ = self.watcher([(a.pid, procs.proc_stat(a.pid).start)], rounds=1000, interval='0.2')
        time.sleep(0.5)
        self.assertIsNone(p.poll(), 'still watching')
        open(self.wake, 'w').close()
        t0 = time.time()
        self.assertEqual(self.reason(self.result(p)), 'wake')
        self.assertLess(time.time() - t0, 2, 'seen on the next round')

    def test_a_wake_file_already_there_is_seen_before_the_first_sleep(self):
        a = self.target()
        open(self.wake, 'w').close()
        t0 = time.time()
        p, _ = self.watcher([(a.pid, procs.proc_stat(a.pid).start)], rounds=1000, interval='5')
        self.assertEqual(self.reason(self.result(p)), 'wake')
        self.assertLess(time.time() - t0, 2)

    def test_usr1_from_its_first_instant_kills_neither_it_nor_the_next_python(self):
        # The old script trapped USR1: a wake in the sh's first instructions (before the trap)
        # killed the daemon. Now it comes in ignored and is ignored into the next exec.
        a = self.target()
        p, _ = self.watcher([(a.pid, procs.proc_stat(a.pid).start)], rounds=8, interval='0.05')
        sent = 0
        while p.poll() is None:
            try:
                p.send_signal(signal.SIGUSR1)
                sent += 1
            except OSError:
                break
        self.assertGreater(sent, 10)
        self.assertEqual(self.reason(self.result(p)), 'rounds')
        with open(self.out + '.sig') as f:
            mask = int(f.read().split()[1], 16)
        self.assertTrue(mask & (1 << (signal.SIGUSR1 - 1)), 'USR1 ignored into the exec')

    def test_its_sleep_holds_neither_the_lock_nor_the_guard_pipe(self):
        a = self.target()
        p, _ = self.watcher([(a.pid, procs.proc_stat(a.pid).start)], rounds=1000, interval='5')
        end = time.time() + 5
        kid = None
        while kid is None and time.time() < end:
            for name in os.listdir('/proc'):
                if name.isdigit():
                    st = procs.proc_stat(int(name))
                    if st and st.ppid == p.pid:
                        kid = int(name)
            time.sleep(0.02)
        self.assertIsNotNone(kid, 'the sleep runs')
        fds = lambda pid: set(int(f) for f in os.listdir('/proc/%d/fd' % pid))
        self.assertEqual(fds(kid) & {8, 9}, set())
        self.assertEqual(fds(p.pid) & {8, 9}, {8, 9})

    def test_term_says_bye_and_removes_the_pid_file_and_an_unread_wake_file(self):
        # A wake that lands in the sh's sleep, then TERM (shutdown, an upgrade): the sh leaves
        # without reading the file. The Python daemon removes it as it exits; so must the sh,
        # or daemon.wake outlives every daemon in the base dir.
        a = self.target()
        p, r = self.watcher([(a.pid, procs.proc_stat(a.pid).start)], rounds=1000, interval='5')
        time.sleep(0.3)
        open(self.wake, 'w').close()
        p.send_signal(signal.SIGTERM)
        self.assertEqual(p.wait(3), 0)
        self.assertEqual(os.read(r, 100), b'bye\n')
        os.close(r)
        self.assertFalse(os.path.exists(self.pidfile))
        self.assertFalse(os.path.exists(self.wake), 'no daemon, no wake file')
        self.assertFalse(os.path.exists(self.out), 'nothing exec-ed')


class Wake(unittest.TestCase):
    """daemon_ctl.wake: the wake file while the recorded daemon lives; USR1 only to a process
    that catches or ignores it, so a wake never kills anything (a stale or reused pid included)."""

    def setUp(self):
        from skydeck_agent_lib.paths import Paths
        self.dir = tempfile.mkdtemp(prefix='skydeck-wake-')
        self.paths = Paths(self.dir)
        self.kids = []

    def tearDown(self):
        for p in self.kids:
            if p.poll() is None:
                p.kill()
            p.wait()
            p.stdout.close()
        subprocess.call(['rm', '-rf', self.dir])

    def proc(self, usr1):
        """A process recorded as the daemon; usr1: 'default', 'ignore' or 'catch'."""
        code = ('import signal,sys,time\n'
                'got=[]\n'
                'if %r == "ignore": signal.signal(signal.SIGUSR1, signal.SIG_IGN)\n'
                'if %r == "catch": signal.signal(signal.SIGUSR1, lambda *a: got.append(1))\n'
                'sys.stdout.write("ok\\n"); sys.stdout.flush()\n'
                'end = time.time() + 30\n'
                'while not got and time.time() < end: time.sleep(0.01)\n'
                'sys.stdout.write("woke\\n" if got else "timeout\\n"); sys.stdout.flush()\n') % (usr1, usr1)
        p = subprocess.Popen([sys.executable, '-c', code], stdout=subprocess.PIPE)
        self.kids.append(p)
        self.assertEqual(p.stdout.readline(), b'ok\n')
        with open(self.paths.daemon_pid, 'w') as f:
            f.write('%d %d 1\n' % (p.pid, procs.proc_stat(p.pid).start))
        return p

    def wake(self):
        from skydeck_agent_lib import daemon_ctl
        daemon_ctl.wake(self.paths)
        return os.path.exists(self.paths.daemon_wake)

    def test_a_catching_daemon_gets_the_signal_and_the_file(self):
        p = self.proc('catch')
        self.assertTrue(self.wake())
        self.assertEqual(p.stdout.readline(), b'woke\n')

    def test_a_process_that_would_die_of_usr1_is_not_signalled(self):
        p = self.proc('default')
        self.assertTrue(self.wake(), 'the file: a sh with USR1 ignored reads it')
        time.sleep(0.3)
        self.assertIsNone(p.poll(), 'not killed by the wake')

    def test_an_ignoring_process_lives(self):
        p = self.proc('ignore')
        self.assertTrue(self.wake())
        time.sleep(0.3)
        self.assertIsNone(p.poll())

    def test_a_stale_pid_file_leaves_no_wake_file_and_signals_nothing(self):
        p = self.proc('default')
        with open(self.paths.daemon_pid, 'w') as f:  # this pid, another start: a reused pid
            f.write('%d %d 1\n' % (p.pid, procs.proc_stat(p.pid).start + 1))
        self.assertFalse(self.wake())
        time.sleep(0.3)
        self.assertIsNone(p.poll())
        p.kill()
        p.wait()
        self.assertFalse(self.wake(), 'a dead daemon: no file left in the base dir')

    def test_a_daemon_that_exits_while_it_is_woken_leaves_no_wake_file(self):
        # The daemon's exit (daemon.pid removed, then the wake file) can fall between wake's
        # look at the process and its creating the file: then nothing removes it any more.
        from skydeck_agent_lib import daemon_ctl
        p = self.proc('catch')
        real = daemon_ctl._touch

        def late(path):
            os.unlink(self.paths.daemon_pid)  # the daemon's way out, in its order
            daemon_ctl.take_wake(self.paths)
            p.kill()
            p.wait()
            real(path)
        daemon_ctl._touch = late
        try:
            self.wake()
        finally:
            daemon_ctl._touch = real
        self.assertFalse(os.path.exists(self.paths.daemon_wake), 'no daemon, no wake file')

    def test_the_daemon_takes_the_wake_once(self):
        from skydeck_agent_lib import daemon_ctl
        self.proc('catch')
        self.wake()
        self.assertTrue(daemon_ctl.take_wake(self.paths))
        self.assertFalse(daemon_ctl.take_wake(self.paths))



class DaemonExec(unittest.TestCase):
    """The Python daemon's exec into the sh (daemon._to_watch), with the real agent: a signal
    that lands between its last look and the exec must not be lost."""

    AGENT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '../../../agent/skydeck_agent.py')

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix='skydeck-daemon-exec-')
        self.kids = []

    def tearDown(self):
        for p in self.kids:
            p.kill()
        for _ in range(3):  # the daemon, its guard and whatever a guard revived
            mine = []
            for name in os.listdir('/proc'):
                try:
                    with open('/proc/%s/cmdline' % name, 'rb') as f:
                        if name.isdigit() and self.dir.encode() in f.read():
                            mine.append(int(name))
                except OSError:
                    pass
            for pid in mine:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
            time.sleep(0.05)
        subprocess.call(['rm', '-rf', self.dir])

    def running_job(self):
        """jobs.db with one RUNNING job whose driver is a live process."""
        from skydeck_agent_lib import db
        from skydeck_agent_lib.paths import Paths
        drv = subprocess.Popen(['sleep', '600'])
        self.kids.append(Kid(drv.pid))
        conn = db.connect(Paths(self.dir))
        now = time.time()
        conn.execute("INSERT INTO jobs (status, submitted_at, started_at, spec, driver_pid, driver_start, "
                     "boot_id) VALUES ('RUNNING', ?, ?, '{}', ?, ?, ?)",
                     (now, now, drv.pid, procs.proc_stat(drv.pid).start, procs.boot_id()))
        conn.close()

    def daemon(self, before_exec):
        """The daemon in a child of ours; before_exec runs in it as it execs into the sh."""
        pid = os.fork()
        if pid == 0:
            try:
                from skydeck_agent_lib import daemon
                from skydeck_agent_lib.context import Ctx
                log = os.open(os.path.join(self.dir, 'daemon.log'), os.O_WRONLY | os.O_CREAT | os.O_APPEND)
                os.dup2(log, 1)
                os.dup2(log, 2)
                os.environ.update(SKYDECK_TICK_INTERVAL='0.1', SKYDECK_DAEMON_WATCH_HOLD='0',
                                  SKYDECK_DAEMON_IDLE_EXIT='1')
                real = watch.exec_sh

                def exec_sh(*a):
                    before_exec()
                    return real(*a)
                watch.exec_sh = exec_sh
                daemon.run(Ctx(self.dir, os.path.abspath(self.AGENT), client=False))
            finally:
                os._exit(0)
        p = Kid(pid)
        self.kids.append(p)
        return p

    def test_a_term_just_before_the_exec_is_not_lost(self):
        # shutdown and an upgrade's ensure send TERM and expect the daemon gone. One that came
        # after the last look at `stop` set only the Python handler's flag, which the exec
        # dropped: the sh went on watching and the daemon outlived the shutdown.
        self.running_job()
        mark = os.path.join(self.dir, 'exec')

        def term():
            open(mark, 'w').close()
            os.kill(os.getpid(), signal.SIGTERM)
        p = self.daemon(term)
        p.wait(5)  # left or died (a TERM before the sh's trap kills it: README's known gap)
        self.assertTrue(os.path.exists(mark), 'it went for the exec')

if __name__ == '__main__':
    unittest.main()
