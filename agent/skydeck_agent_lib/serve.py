"""serve: JSON lines over stdin/stdout for one client connection (see README.md).

Requests run in order on the main thread; `logs` streams run on one follower thread and are
multiplexed by request id, so a long follow never holds up other requests. A job a submit
queued is staged here after the answer when no request waits yet, else by two child processes
(stager.py), as are jobs the queue moves into line. The process exits when stdin closes.
"""
import os
import sys
import threading

from . import VERSION, PROTOCOL
from . import daemon_ctl, jobs, logs, stage, stager
from .request_lines import Lines
from .context import Ctx
from .errors import AgentError
from .liveness import on_read
from .states import TERMINAL
from .wire import dumps, encode, loads

# Chunks one stream may send before the others get a turn.
BUDGET = 4


class Out(object):
    def __init__(self, stream):
        self.stream = stream
        self.lock = threading.Lock()
        self.broken = False

    def send(self, obj):
        pieces = encode(obj)
        pieces.append(b'\n')
        self.send_line(*pieces)

    def send_line(self, *pieces):
        with self.lock:
            if self.broken:
                return
            try:
                for p in pieces:
                    self.stream.write(p)
                self.stream.flush()
            except (BrokenPipeError, OSError, ValueError):
                self.broken = True


class Stream(object):
    def __init__(self, rid, job_id, reader, follow):
        self.rid, self.job_id, self.reader, self.follow = rid, job_id, reader, follow
        self.rid_json = dumps(rid).encode('utf-8')


class Follower(threading.Thread):
    """Pumps every open logs stream; wakes up on new streams, polls files otherwise."""

    def __init__(self, base, agent_path, out):
        threading.Thread.__init__(self, name='follower')
        self.daemon = True
        self.ctx = Ctx(base, agent_path)
        self.out = out
        self.cv = threading.Condition()
        self.streams = {}
        self.stopped = set()
        self.quit = False
        self.watch = logs.Watch()

    def add(self, rid, job_id, offset, follow, rank=0):
        with self.cv:
            key = _key(rid)
            if key in self.streams:
                raise AgentError('invalid_argument', 'a logs stream with this id is open')
            self.streams[key] = Stream(rid, job_id, logs.Reader(self.ctx.paths, job_id, offset, rank),
                                       follow)
            self.cv.notify()

    def stop(self, rid):
        with self.cv:
            if _key(rid) not in self.streams:
                return False
            self.stopped.add(_key(rid))
            self.cv.notify()
            return True

    def shutdown(self):
        with self.cv:
            self.quit = True
            self.cv.notify()

    def run(self):
        idle = 0.02
        while True:
            with self.cv:
                while not self.streams and not self.quit:
                    self.cv.wait()
                if self.quit:
                    return
                stopped, self.stopped = self.stopped, set()
                streams = list(self.streams.items())
            busy = False
            for key, s in streams:
                try:
                    if key in stopped:
                        state = logs.job_state(self.ctx.conn(), s.job_id)
                        self._finish(key, s, state, stopped=True)
                        continue
                    busy = self._pump(key, s) or busy
                except Exception as e:  # one broken stream must not end the others
                    self._fail(key, s, e)
            if self.out.broken:
                return
            idle = 0.02 if busy else min(idle * 1.5, 0.2)
            if not busy:
                with self.cv:
                    if not self.stopped and not self.quit:
                        self.cv.wait(idle)

    def _pump(self, key, s):
        sent = 0
        while sent < BUDGET:
            if not self._send_chunk(s):
                break
            sent += 1
        if sent == BUDGET:
            return True
        state = logs.job_state(self.ctx.conn(), s.job_id)
        if s.follow and state['status'] not in TERMINAL:
            self.watch.due(self.ctx)
            return sent > 0
        # Terminal (or not following): what is in the file now is all of it.
        while self._send_chunk(s):
            pass
        self._finish(key, s, state)
        return True

    def _send_chunk(self, s):
        start = s.reader.offset
        data = s.reader.read()
        if not data:
            return False
        # A header line, then the bytes as they are (one write under the lock: never split).
        self.out.send_line(b'{"id":' + s.rid_json + b',"event":"log","offset":' + str(start).encode() +
                           b',"bytes":' + str(len(data)).encode() + b'}\n', data)
        return True

    def _finish(self, key, s, state, **extra):
        with self.cv:
            self.streams.pop(key, None)
        s.reader.close()
        self.out.send({'id': s.rid, 'ok': True,
                       'result': logs.final(s.job_id, s.reader, state, **extra)})

    def _fail(self, key, s, e):
        with self.cv:
            self.streams.pop(key, None)
        s.reader.close()
        err = e if isinstance(e, AgentError) else AgentError('internal', repr(e))
        self.out.send({'id': s.rid, 'ok': False, 'error': err.to_wire()})


def _key(rid):
    return dumps(rid)


def serve(ctx, commands, stdin=None, stdout=None):
    lines = Lines((stdin or sys.stdin.buffer).fileno())
    after_submit = stage.AfterSubmit()
    out = Out(stdout or sys.stdout.buffer)
    ctx.queue_cache = jobs.QueueCache()
    stagers = stager.Stagers(ctx.paths.base, ctx.agent_path)  # forked before any thread starts
    follower = Follower(ctx.paths.base, ctx.agent_path, out)
    follower.start()
    out.send({'id': None, 'event': 'hello', 'version': VERSION, 'protocol': PROTOCOL,
              'pid': os.getpid(), 'base_dir': ctx.paths.base})
    _wake_daemon(ctx)
    while not out.broken:
        line = lines.readline()
        if not line:
            break
        if not line.strip():
            continue
        rid = None
        try:
            try:
                req = loads(line.decode('utf-8'))
            except (ValueError, UnicodeDecodeError) as e:
                raise AgentError('bad_json', 'request is not valid JSON: %s' % e)
            if not isinstance(req, dict):
                raise AgentError('bad_request', 'a request is a JSON object')
            rid = req.get('id')
            cmd = req.get('cmd')
            args = req.get('args')
            if args is None:
                args = {}
            if not isinstance(args, dict):
                raise AgentError('bad_request', 'args must be an object')
            if cmd != 'version':
                ctx.check_schema()
            if cmd == 'logs':
                job_id, offset, follow, rank = logs.parse_args(args)
                on_read(ctx)
                logs.job_state(ctx.conn(), job_id)  # unknown job: answer now, not in the stream
                follower.add(rid, job_id, offset, follow, rank)
                continue
            if cmd == 'unfollow':
                result = {'stopped': follower.stop(args.get('request'))}
            elif cmd in commands:
                result = commands[cmd](ctx, args)
            else:
                raise AgentError('unknown_command', 'unknown command %r' % (cmd,))
            out.send({'id': rid, 'ok': True, 'result': result})
            if cmd == 'submit' and result.get('status') == 'PENDING' and not lines.waiting():
                _stage(ctx, after_submit, result['job_id'])  # in a pipelined burst the stagers do it
            elif cmd in ('cancel', 'configure'):
                after_submit.forget()  # the line may have moved
            if cmd in stager.KICKED_BY:
                stagers.kick()
        except AgentError as e:
            out.send({'id': rid, 'ok': False, 'error': e.to_wire()})
        except Exception as e:
            out.send({'id': rid, 'ok': False, 'error': {'code': 'internal', 'message': repr(e)}})
    follower.shutdown()
    stagers.shutdown()  # they leave at once: what they had yet to stage is done here
    _stage_rest(ctx)
    return 0


def _stage(ctx, after_submit, job_id):
    try:
        after_submit.stage(ctx, job_id)
    except Exception:  # only a head start, and the request was answered: the launcher writes them
        pass


def _stage_rest(ctx):
    try:
        if ctx.has_db():
            stage.stage_pending(ctx)
    except Exception:  # only a head start: the launcher writes what is missing
        pass


def _wake_daemon(ctx):
    try:
        if ctx.has_db() and jobs.nonterminal_exists(ctx.conn()):
            daemon_ctl.ensure(ctx)
    except Exception:
        pass
