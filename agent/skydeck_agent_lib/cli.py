"""Command line: `skydeck_agent.py [--base DIR] COMMAND [options]`, one JSON answer on stdout.

Hand-parsed (no argparse) so that usage errors come back as the same JSON error object and
start-up stays short: the drivers call this at the end of every job.
"""
import json
import os
import sys

from .context import Ctx
from .errors import AgentError
from .paths import default_base
from .wire import encode, loads

USAGE = ('usage: skydeck_agent.py [--base DIR] '
         '{version|submit|queue|cancel|logs|status|tick|configure|serve} [options]')


class Commands(object):
    """Commands reachable both from the command line and over serve, imported on first use
    (a short CLI call should not pay for modules it does not run)."""

    TABLE = {'version': ('jobs', 'version'), 'submit': ('jobs', 'submit'),
             'queue': ('jobs', 'queue'), 'cancel': ('cancel', 'cancel'),
             'status': ('jobs', 'status'), 'tick': ('cli', 'tick'),
             'configure': ('jobs', 'configure'), 'shutdown': ('daemon', 'shutdown')}

    def __contains__(self, name):
        return name in self.TABLE

    def __getitem__(self, name):
        import importlib
        module, func = self.TABLE[name]
        return getattr(importlib.import_module('skydeck_agent_lib.' + module), func)


def tick(ctx, args):
    # daemon_ctl, not daemon: tick only starts the daemon, it never needs its main loop.
    from . import daemon_ctl, jobs, liveness
    result = liveness.sweep(ctx)
    if jobs.nonterminal_exists(ctx.conn()):
        daemon_ctl.ensure(ctx)
    return result


def commands():
    return Commands()


def _usage(msg):
    return AgentError('usage', '%s\n%s' % (msg, USAGE))


def _int(v, what):
    try:
        return int(v)
    except (TypeError, ValueError):
        raise _usage('%s must be an integer, got %r' % (what, v))


def _parse(cmd, argv):
    """Options of one command -> the same args object serve takes."""
    args, pos, i = {}, [], 0
    flags = {'--follow': 'follow', '--all': 'all'}
    values = {'--since': 'since', '--user': 'user', '--grace': 'grace', '--offset': 'offset',
              '--db-id': 'db_id', '--rank': 'rank'}
    while i < len(argv):
        a = argv[i]
        if a in flags:
            args[flags[a]] = True
        elif a in values:
            if i + 1 >= len(argv):
                raise _usage('%s needs a value' % a)
            args[values[a]] = argv[i + 1]
            i += 1
        elif a.startswith('--'):
            raise _usage('unknown option %s' % a)
        else:
            pos.append(a)
        i += 1
    if 'since' in args:
        args['since'] = _int(args['since'], '--since')
    if 'offset' in args:
        args['offset'] = _int(args['offset'], '--offset')
    if 'rank' in args:
        args['rank'] = _int(args['rank'], '--rank')
    if 'grace' in args:
        try:
            args['grace'] = float(args['grace'])
        except ValueError:
            raise _usage('--grace must be a number of seconds')
    if cmd in ('cancel', 'queue') and pos:
        args['job_ids'] = [_int(p, 'job id') for p in pos]
    elif cmd == 'logs':
        if len(pos) != 1:
            raise _usage('logs takes exactly one job id')
        args['job_id'] = _int(pos[0], 'job id')
    elif pos:
        raise _usage('%s takes no positional arguments' % cmd)
    return args


def _stdin_json():
    data = sys.stdin.buffer.read()
    try:
        return loads(data.decode('utf-8'))
    except (ValueError, UnicodeDecodeError) as e:
        raise AgentError('bad_json', 'stdin is not valid JSON: %s' % e)


def _print(obj, stream=None):
    stream = (stream or sys.stdout).buffer
    for piece in encode(obj):
        stream.write(piece)
    stream.write(b'\n')
    stream.flush()


def _mark_fds_cloexec():
    """Descriptors we inherited (an sshd's, a test runner's) must not leak into jobs."""
    try:
        fds = [int(f) for f in os.listdir('/proc/self/fd')]
    except OSError:
        fds = range(3, 256)
    for fd in fds:
        if fd > 2:
            try:
                os.set_inheritable(fd, False)
            except OSError:
                pass


def main(argv, agent_path):
    from .private import tighten
    tighten()  # every file the agent makes is its user's alone (private.py)
    base = None
    if len(argv) >= 2 and argv[0] == '--base':
        base, argv = argv[1], argv[2:]
    elif argv and argv[0].startswith('--base='):
        base, argv = argv[0][len('--base='):], argv[1:]
    base = base or default_base()
    if not argv:
        _print({'ok': False, 'error': _usage('no command').to_wire()})
        return 2
    cmd, rest = argv[0], argv[1:]
    if cmd.startswith('_'):
        return _internal(cmd, rest, base, agent_path)
    _mark_fds_cloexec()
    ctx = Ctx(base, agent_path, client=True)
    from .hooks import record
    record(ctx.paths)
    err_stream = sys.stderr if cmd == 'logs' else sys.stdout
    try:
        if cmd == 'serve':
            if rest:
                raise _usage('serve takes no arguments')
            from .serve import serve
            return serve(ctx, commands())
        if cmd == 'logs':
            from .logs import cli_logs
            result = cli_logs(ctx, _parse(cmd, rest), sys.stdout.fileno())
            _print({'ok': True, 'result': result}, sys.stderr)
            return 0
        table = commands()
        if cmd not in table:
            raise _usage('unknown command %r' % cmd)
        args = _stdin_json() if cmd in ('submit', 'configure') else _parse(cmd, rest)
        if cmd in ('submit', 'configure') and rest:
            raise _usage('%s reads its JSON from stdin and takes no arguments' % cmd)
        _print({'ok': True, 'result': table[cmd](ctx, args)})
        return 0
    except AgentError as e:
        _print({'ok': False, 'error': e.to_wire()}, err_stream)
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 1
    except Exception as e:
        _print({'ok': False, 'error': {'code': 'internal', 'message': repr(e)}}, err_stream)
        return 1
    finally:
        ctx.close()


def _internal(cmd, rest, base, agent_path):
    """Calls from drivers and from the agent itself; not part of the client protocol."""
    if cmd == '_kexec':
        from . import kexec  # the head's exec client into its worker pods: no state touched
        return kexec.main(rest)
    ctx = Ctx(base, agent_path, client=False)
    if cmd == '_daemon':
        from . import daemon
        return daemon.main(ctx, rest)
    if cmd == '_revive' and not rest:
        from . import daemon
        return daemon.revive(ctx)
    from . import jobs, scheduler
    if cmd == '_phase' and len(rest) == 2:
        jobs.phase(ctx, {'job_id': int(rest[0]), 'status': rest[1]})
        return 0
    if cmd == '_done' and len(rest) in (2, 3):
        res = jobs.done(ctx, {'job_id': int(rest[0]), 'exit_code': int(rest[1]),
                              'phase': rest[2] if len(rest) == 3 else 'run'})
        ctx.close()
        if res['changed']:
            scheduler.detached_step(ctx)
        return 0
    if cmd == '_gang' and len(rest) == 1:
        from . import gang
        return gang.run(ctx, int(rest[0]))
    if cmd == '_rank' and len(rest) == 3:
        from . import rank
        return rank.run_rank(ctx, int(rest[0]), int(rest[1]), rest[2])
    if cmd == '_rankwait' and len(rest) == 2:
        from . import rank
        return rank.wait_after_run(ctx, int(rest[0]), int(rest[1]))
    if cmd == '_selfstop' and not rest:
        from . import selfstop
        return selfstop.run(ctx)
    if cmd == '_kill' and len(rest) == 2:
        from . import rank
        return rank.kill_here(ctx, int(rest[0]), int(rest[1]))
    sys.stderr.write('unknown internal command %s %s\n' % (cmd, json.dumps(rest)))
    return 2
