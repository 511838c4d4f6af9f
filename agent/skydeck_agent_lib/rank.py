"""Worker side of a gang job: run one rank's phase, or kill a job's processes here.

`_rank JOB RANK PHASE` reads {"vars", "script", "cwd", "head_home"} as JSON on stdin, then runs
the user's shell on the script with this node's login environment plus the job's variables and
this node's job marker, so `_kill` (and the head's cancel through it) finds every process.
Output goes to stdout, which the head's gang driver appends to the rank's log; the exit code is
also left in a file for the head to read when the ssh connection itself failed.
"""
import json
import os
import subprocess
import sys

from . import flushwait, procs
from .driver import filtered_environ, user_shell
from .paths import MARKER_VAR
from .private import restore_for_job


def run_rank(ctx, job_id, rank, phase):
    req = json.loads(sys.stdin.buffer.read().decode('utf-8'))
    d = os.path.join(ctx.paths.job_dir(job_id))
    os.makedirs(d, 0o700, exist_ok=True)
    script = os.path.join(d, 'rank-%d-%s.sh' % (rank, phase))
    with open(script, 'wb') as f:
        f.write(req['script'].encode('utf-8', 'surrogateescape'))
    env = filtered_environ(os.environ)
    env.update(req['vars'])
    # This process is marked too: `_kill` takes it with the rank, so no exit file is written.
    os.environ[MARKER_VAR] = env[MARKER_VAR] = ctx.paths.marker(job_id)
    cwd = _local_dir(req.get('cwd'), req.get('head_home'))
    if not os.path.isdir(cwd):
        sys.stdout.write('skydeck: the workdir %s does not exist on this node\n' % cwd)
        code = 1
    else:
        sys.stdout.flush()
        shell = user_shell()
        um = req.get('umask')
        code = subprocess.call([shell, script], cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                               preexec_fn=lambda: restore_for_job(um))
        if code < 0:
            code = 128 - code
        if phase == 'run':
            code = _flushed(ctx, job_id, code)
    # The head reads this when ssh itself fails (255): a rank that finished left its code here;
    # a node that restarted under the rank left none.
    with open(exit_file(ctx.paths, job_id, rank, phase), 'w') as f:
        f.write(str(code))
    return code


def _flushed(ctx, job_id, code):
    """This node's MOUNT_CACHED mounts upload before the rank reports (README, "Cached mounts").
    A mount that does not is said in the rank's log, and the rank fails."""
    def say(line):
        sys.stdout.write('[skydeck] %s\n' % line)
        sys.stdout.flush()
    flag = os.path.join(ctx.paths.job_dir(job_id), 'cancelled')
    unflushed = flushwait.wait_flushed(ctx.paths, job_id, say, lambda: os.path.exists(flag))
    if unflushed:
        say(unflushed)
        return code or 1
    return code


def wait_after_run(ctx, job_id, code):
    """`_rankwait JOB CODE`: the sh rank (rank_sh.py) found cached mounts registered here; wait
    for their uploads as `_rank` does. Exits with the rank's code, or 1 when a mount did not."""
    return _flushed(ctx, job_id, code)


def exit_file(paths, job_id, rank, phase):
    return os.path.join(paths.job_dir(job_id), 'rank-%d-%s.exit' % (rank, phase))


def _local_dir(cwd, head_home):
    """The head's workdir path, here: under this node's home when it was under the head's."""
    home = os.path.expanduser('~')
    if not cwd:
        return home
    if head_home and (cwd == head_home or cwd.startswith(head_home.rstrip('/') + '/')):
        return home + cwd[len(head_home.rstrip('/')):]
    return cwd


def kill_here(ctx, job_id, sig):
    procs.kill_jobs(ctx.paths.marker_prefix, [(job_id, None, None, None)], sig, procs.boot_id())
    return 0
