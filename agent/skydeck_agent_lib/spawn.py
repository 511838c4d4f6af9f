"""Starting detached processes: drivers and the daemon (spawn_many), copies of this process
that must outlive the caller (fork_detached). Nothing started here is a child of the agent."""
import os
import signal

from .procs import proc_stat, reset_child_signals


def spawn_many(items, prepare=None):
    """Start detached processes; items: [(key, argv, env, out_path[, fd])] -> {key: (pid, start)
    | error str}. An item's optional fd is handed to its process as fd 3.

    The agent forks a few short-lived intermediates (in parallel on several cores); each one
    posix_spawns its share of the processes with setsid, reads their start times and exits, so
    the spawned processes are re-parented away from the agent. Forking the agent once per batch,
    not once per job, is what keeps starting 64 jobs cheap.

    prepare(key), when given, runs in the intermediate right before that item's spawn, and may
    return the item's (argv, env[, note]) to use instead of the ones in items (a note, one word,
    comes back as a third element of the result): a job's files, cgroup and
    environment (~0.3 ms a job) are then spread over the intermediates and overlap the starts,
    instead of all of it coming before the first. Its error is the item's result, prefixed
    "could not prepare the job: "; a spawn's, "could not start the driver: ".
    """
    if not items:
        return {}
    workers = max(1, min(os.cpu_count() or 1, 4, (len(items) + 7) // 8))
    groups = [items[i::workers] for i in range(workers)]
    r, w = os.pipe()
    kids = []
    for group in groups:
        pid = os.fork()
        if pid == 0:  # intermediate
            code = 0
            try:
                os.close(r)
                for item in group:
                    os.write(w, _start_item(item, prepare).encode('utf-8', 'replace'))
            except BaseException:
                code = 1
            finally:
                os._exit(code)
        kids.append(pid)
    os.close(w)
    data = []
    while True:
        b = os.read(r, 65536)
        if not b:
            break
        data.append(b)
    os.close(r)
    for pid in kids:
        os.waitpid(pid, 0)
    out = {}
    for line in b''.join(data).decode('utf-8', 'replace').splitlines():
        key, pid, rest = line.split(' ', 2)
        if pid == '0':
            out[key] = rest
        else:
            start, _, note = rest.partition(' ')
            start = None if start == '-' else (int(start) if start.isdigit() else start)
            out[key] = (int(pid), start, note) if note else (int(pid), start)
    return out


def _start_item(item, prepare):
    """One item in an intermediate: its result line. Errors are reported per item and never
    end the batch."""
    key, what, note = item[0], 'could not prepare the job', ''
    try:
        made = prepare(key) if prepare is not None else None
        if made is not None:
            note = made[2] if len(made) > 2 else ''
            item = (key,) + tuple(made[:2]) + tuple(item[3:])
        what = 'could not start the driver'
        child = _spawn_one(*item[1:])
        st = proc_stat(child)
        return '%s %d %s%s\n' % (key, child, st.start if st else '-', ' ' + note if note else '')
    except Exception as e:
        return '%s 0 %s: %s\n' % (key, what, str(e).replace('\n', ' ')[:200])


def _spawn_one(argv, env, out, pass_fd=None):
    fd = os.open(out, os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, 'O_CLOEXEC', 0), 0o600)
    try:
        actions = [(os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
                   (os.POSIX_SPAWN_DUP2, fd, 1),
                   (os.POSIX_SPAWN_DUP2, fd, 2)]
        if pass_fd is not None:
            actions.append((os.POSIX_SPAWN_DUP2, pass_fd, 3))
        try:
            return os.posix_spawn(argv[0], argv, env, setsid=True,
                                  setsigdef=reset_child_signals(), file_actions=actions)
        except (AttributeError, NotImplementedError, TypeError):
            pass  # no posix_spawn setsid here: plain fork + exec
        pid = os.fork()
        if pid == 0:
            try:
                os.setsid()
                null = os.open(os.devnull, os.O_RDONLY)
                os.dup2(null, 0)
                os.dup2(fd, 1)
                os.dup2(fd, 2)
                if pass_fd is not None:
                    os.dup2(pass_fd, 3)
                for s in reset_child_signals():
                    signal.signal(s, signal.SIG_DFL)
                os.execve(argv[0], argv, env)
            finally:
                os._exit(127)
        return pid
    finally:
        os.close(fd)


def fork_detached():
    """Fork a detached copy of this process (own session, not our child, stdio on /dev/null).

    Returns True in the copy, which must finish with os._exit() and must not use any database
    connection or lock it inherited; False in the caller once the intermediate is reaped.
    """
    pid = os.fork()
    if pid:
        os.waitpid(pid, 0)
        return False
    try:
        os.setsid()
        if os.fork():
            os._exit(0)
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        os.close(null)
        return True
    except BaseException:
        os._exit(1)
