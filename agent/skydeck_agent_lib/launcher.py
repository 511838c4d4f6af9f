"""Starting a batch of job drivers through the waiter's --launch mode (native/skydeck_launch.c).

spawn_many forks intermediates of this process to start drivers in parallel; each fork of a
~20 MB interpreter then pays copy-on-write faults, and each posix_spawn and /proc read costs
Python time: ~0.3 ms of CPU per job, on the cores the released jobs' shells need. Here one small
static process gets the prepared jobs over a pipe as they are made ready, forks and execs each
(in its own session, its log as stdout and stderr) and answers with its pid and start time.
The drivers are its children, never this process's, and are re-parented when it ends.
"""
import errno
import os
import select

from .procs import reset_child_signals
from .spawn import spawn_many

MAX_RECORD = 1 << 22  # the launcher's buffer; more than exec takes anyway (E2BIG)
MAX_STRINGS = 1 << 16
KEY_MAX = 64  # bytes, as the launcher counts


def launch_many(path, items, prepare):
    """spawn_many's contract (items [(key, argv, env, out_path)], prepare, the result) through
    the launcher at `path` (the waiter binary); spawn_many itself when it cannot be started.

    A job handed over but never answered (the launcher killed mid-batch) has no result, as
    with an intermediate killed: it may have started, so it is left to the liveness sweep
    (claimed without a driver: failed after scheduler.CLAIM_TIMEOUT, its cgroup or marker
    emptied), never called failed while it may run."""
    if not items:
        return {}
    try:
        proc = _Launcher(path)
    except OSError:
        return spawn_many(items, prepare)
    out, notes, sent, unsent = {}, {}, [], []
    try:
        for item in items:
            key = item[0]
            try:
                made = prepare(key) if prepare is not None else None
            except Exception as e:
                out[key] = 'could not prepare the job: %s' % _one_line(e)
                continue
            argv, env = (made[0], made[1]) if made is not None else (item[1], item[2])
            if made is not None and len(made) > 2 and made[2]:
                notes[key] = made[2]
            record = _record(key, item[3], argv, env)
            if isinstance(record, str):
                out[key] = 'could not start the driver: ' + record
            elif proc.send(record):
                sent.append(item)
            else:
                unsent.append(item)
    finally:
        lines, status = proc.finish()
    if not lines and os.WIFEXITED(status) and os.WEXITSTATUS(status) == 2:
        # It refused its input before starting anything (a waiter without --launch, say): the
        # intermediates start these jobs instead (prepare is safe to run twice).
        out.update(spawn_many(sent + unsent, prepare))
        return out
    for item in unsent:
        out[item[0]] = 'could not start the driver: the launcher ended first'
    out.update(_answers(lines, notes, set(item[0] for item in sent)))
    return out


def _record(key, log, argv, env):
    """The launcher's record of one job, or why there is none."""
    strings = [key, log] + list(argv) + [''] + ['%s=%s' % kv for kv in env.items()]
    text = '\0'.join(strings)  # one encode for the whole record: ~100 variables a job
    if not argv or any(not a for a in argv) or text.count('\0') != len(strings) - 1:
        return 'an empty argument or a NUL byte in its command or environment'
    if '' in env or '=' in ''.join(env):  # at C speed: ~100 names a job
        return 'an environment variable name that is empty or holds "="'
    if not 0 < len(os.fsencode(key)) <= KEY_MAX or any(c.isspace() for c in key):
        raise ValueError('launcher: bad key %r' % key)  # ours, never a user's: a bug
    try:
        body = os.fsencode(text) + b'\0'
    except UnicodeError as e:  # a value this node's locale cannot spell: this job alone fails
        return _one_line(e)
    if len(body) > MAX_RECORD or len(strings) > MAX_STRINGS:
        return os.strerror(errno.E2BIG)
    return b'%08x' % len(body) + body


class _Launcher(object):
    """The launcher process: records written as it takes them, its answers read meanwhile (so
    neither side can block on a full pipe)."""

    def __init__(self, path):
        rec_r, self.rec_w = os.pipe()
        self.res_r, res_w = os.pipe()
        try:
            self.pid = os.posix_spawn(path, [path, '--launch'], {}, setsigdef=reset_child_signals(),
                                      file_actions=[(os.POSIX_SPAWN_DUP2, rec_r, 0),
                                                    (os.POSIX_SPAWN_DUP2, res_w, 1),
                                                    (os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0)])
        except BaseException:
            for fd in (self.rec_w, self.res_r):
                os.close(fd)
            raise
        finally:
            os.close(rec_r)
            os.close(res_w)
        os.set_blocking(self.rec_w, False)
        self.chunks = []
        self.poll = select.poll()  # not select(): descriptors past 1024 are fine
        self.poll.register(self.res_r, select.POLLIN)
        self.res_open = True
        self.poll.register(self.rec_w, select.POLLOUT)

    def send(self, data):
        """Hands over one record; False when the launcher is gone (nothing of it started)."""
        view = memoryview(data)
        while view:
            if self.rec_w is None:
                return False
            for fd, _ in self.poll.poll():
                if fd == self.res_r:
                    self._read()
                elif self.rec_w is not None:
                    try:
                        view = view[os.write(self.rec_w, view):]
                    except BlockingIOError:
                        pass
                    except BrokenPipeError:
                        self._close_input()
        return True

    def _read(self):
        b = os.read(self.res_r, 65536)
        if b:
            self.chunks.append(b)
        elif self.res_open:
            self.res_open = False
            self.poll.unregister(self.res_r)
        return b

    def _close_input(self):
        if self.rec_w is not None:
            self.poll.unregister(self.rec_w)
            os.close(self.rec_w)
            self.rec_w = None

    def finish(self):
        """Its answer lines and wait status, once it ended (it does at its input's end)."""
        self._close_input()
        while self._read():
            pass
        os.close(self.res_r)
        status = os.waitpid(self.pid, 0)[1]
        return b''.join(self.chunks).decode('utf-8', 'replace').splitlines(), status


def _answers(lines, notes, sent):
    """{key: (pid, start[, note]) | error} of the answered jobs among `sent`."""
    started, failed = {}, {}
    for line in lines:
        key, pid, rest = (line.split(' ', 2) + ['', ''])[:3]
        if key not in sent:
            continue
        if pid == '0':  # the child's own report of its failure wins over its pid line
            code, _, what = rest.partition(' ')
            n = int(code[1:]) if code[1:].isdigit() else 0
            why = '[Errno %d] %s' % (n, os.strerror(n))
            failed[key] = {'log': 'cannot open its log: ', 'null': 'cannot open /dev/null: '}.get(what, '') + why
        elif pid.isdigit():
            started[key] = (int(pid), int(rest) if rest.isdigit() else None)
    out = dict((key, 'could not start the driver: ' + why) for key, why in failed.items())
    for key, res in started.items():
        if key not in out:
            out[key] = res + ((notes[key],) if key in notes else ())
    return out


def _one_line(e):
    return str(e).replace('\n', ' ')[:200]
