"""serve's stagers: child processes that stage queued jobs (stage.py) after a request that may
have queued some or moved the queue, so a submit answers as fast as without staging.

Processes, not threads: staging is mostly file creation, but the Python between its system
calls holds the GIL, which serve's request loop then waits for (two stager threads cut the
submit rate from ~1800/s to ~800/s). Each is forked before serve starts any thread, holds none
of serve's stdio (the client's channel must close when serve exits), is kicked by a byte on its
pipe, and leaves at that pipe's end: when serve exits or dies. Two: new files in different
directories are made in parallel, and one fell behind a burst of submits on a slow disk. Each
job is still staged by one only (stage.stage_one).
"""
import os
import select
import time

from . import park, stage
from .context import Ctx

COUNT = 2
PARK_AFTER = 0.1  # seconds without a kick before the next jobs' drivers are parked
KICKED_BY = ('submit', 'cancel', 'configure')


class Stagers(object):
    def __init__(self, base, agent_path, count=COUNT):
        self.kids = []  # (pid, write end of its pipe)
        for _ in range(count):
            r, w = os.pipe()
            try:
                pid = os.fork()
            except OSError:  # no process to spare: the launcher writes the files itself
                os.close(r)
                os.close(w)
                break
            if pid == 0:
                code = 0
                try:
                    os.close(w)
                    for _, other in self.kids:
                        os.close(other)
                    _run(base, agent_path, r)
                except BaseException:
                    code = 1
                finally:
                    os._exit(code)
            os.close(r)
            os.set_blocking(w, False)
            self.kids.append((pid, w))

    def kick(self):
        for _, w in self.kids:
            try:
                os.write(w, b'k')
            except OSError:  # full: a kick waits already; gone: it left
                pass

    def shutdown(self, wait=2.0):
        """Close the pipes and reap the stagers (each ends within one job's files)."""
        for _, w in self.kids:
            os.close(w)
        deadline = time.time() + wait
        for pid, _ in self.kids:
            while True:
                try:
                    if os.waitpid(pid, os.WNOHANG)[0] or time.time() >= deadline:
                        break
                except ChildProcessError:
                    break
                time.sleep(0.005)
        self.kids = []


def _run(base, agent_path, r):
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.close(null)
    os.closerange(3, r)  # nothing else of serve's: its pipes, a database it may have opened
    os.closerange(r + 1, 65536)
    ctx = Ctx(base, agent_path, client=False)
    known, state = set(), {'gone': False, 'again': False}

    def stop():
        """Between two jobs: a kick since the pass began asks for another; the pipe's end
        (serve gone) ends the work."""
        while not state['gone'] and select.select([r], [], [], 0)[0]:
            if os.read(r, 4096):
                state['again'] = True
            else:
                state['gone'] = True
        return state['gone']

    while not state['gone']:
        if not state['again'] and not os.read(r, 4096):
            return
        state['again'] = False
        try:
            stage.stage_pending(ctx, stop=stop, known=known)
            # Then their drivers (park.py), once the queue is quiet: parking takes the CPU a
            # burst of submits, or a release right after it, would otherwise share.
            if not stop() and not state['again'] and not select.select([r], [], [], PARK_AFTER)[0]:
                park.park_next(ctx, stage.next_in_line(ctx.conn()))
        except Exception:  # only a head start: the launcher writes whatever is missing
            ctx.close()

