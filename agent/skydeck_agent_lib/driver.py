"""Job drivers: a static POSIX sh script per running job, spawned detached in its own session.

Nothing from the spec is ever pasted into a shell string: setup and run are written to files in
the job dir, every value reaches the driver through its environment, and the driver script below
is constant. spawn.py starts it re-parented to init (or the nearest subreaper), never a child
of the agent or of another job's driver.
"""
import json
import math
import os
import sys
import time

from . import nodes, private
from .paths import MARKER_VAR

SH = '/bin/sh'

# Runs in the job's session and process group (its pid is the group id), and first of all
# moves itself into the job's cgroup when it has one (a builtin write, no extra process), so
# everything the job starts is inside it. SIGTERM is trapped
# (not ignored, so the user's commands still get default dispositions): the driver outlives
# its children and reports their exit, unless the job was cancelled (flag file), in which case
# the final status is already written. The marker is dropped before exec'ing the reporter so a
# late process scan of this job never matches the agent code that records its end. While run
# runs, a small static waiter (native/skydeck_wait.c, when the agent carries one for this
# machine) takes the driver's place by exec, doing the same wait, check and report in a few
# pages instead of a resident shell's ~0.13 MB. The driver's
# own stderr (shell notices such as "Terminated", a failing reporter) goes to driver.err in the
# job dir; the user's commands write both streams to the job log.
DRIVER = r'''py=$_SKYDECK_PY agent=$_SKYDECK_AGENT base=$_SKYDECK_BASE job=$_SKYDECK_JOB
dir=$_SKYDECK_DIR shell=$_SKYDECK_SHELL cwd=$_SKYDECK_CWD cg=$_SKYDECK_CGROUP um=$_SKYDECK_UMASK
hide=$_SKYDECK_SETUP_UNSET waiter=$_SKYDECK_WAIT
unset _SKYDECK_PY _SKYDECK_AGENT _SKYDECK_BASE _SKYDECK_JOB _SKYDECK_DIR _SKYDECK_SHELL _SKYDECK_CWD \
  _SKYDECK_CGROUP _SKYDECK_UMASK _SKYDECK_SETUP_UNSET _SKYDECK_WAIT
exec 2>>"$dir/driver.err"
if [ -n "$um" ]; then umask "$um"; fi
trap 'term=1' TERM INT
phase=run code=0
if [ -n "$cg" ] && ! echo $$ >"$cg/cgroup.procs"; then
  phase=cgroup code=1
elif ! cd -- "$cwd" 2>&1; then
  phase=workdir code=1
elif [ -f "$dir/setup.sh" ]; then
  (unset $hide; exec "$shell" "$dir/setup.sh") </dev/null 2>&1
  code=$?
  if [ -e "$dir/cancelled" ]; then exit 143; fi
  if [ "$code" -ne 0 ]; then phase=setup
  else "$py" -E -S "$agent" --base "$base" _phase "$job" RUNNING </dev/null >/dev/null; fi
fi
if [ "$phase" = run ] && [ -f "$dir/run.sh" ] && [ ! -e "$dir/cancelled" ]; then
  if [ -n "$waiter" ]; then
    trap '' TERM INT  # ignored, not default, until the waiter has blocked them
    exec "$waiter" "$dir/cancelled" "$shell" "$dir/run.sh" "$py" "$agent" "$base" "$job"
  fi
  "$shell" "$dir/run.sh" </dev/null 2>&1
  code=$?
fi
# Cancelled: the status is final already; leave at once instead of starting an interpreter.
if [ -e "$dir/cancelled" ]; then exit 143; fi
unset SKYDECK_JOB_MARKER
exec "$py" -E -S "$agent" --base "$base" _done "$job" "$code" "$phase" </dev/null >/dev/null
'''

# Variables the agent sets per job; stripped when deriving the base environment of new jobs
# from a process that may itself have been started by a job.
JOB_VARS = ('SKYDECK_JOB_ID', 'SKYDECK_NUM_NODES', 'SKYDECK_NODE_RANK', 'SKYDECK_NODE_IPS',
            'SKYDECK_CLUSTER_NAME', 'SKYDECK_JOB_NAME', MARKER_VAR)


def user_shell():
    # SkyPilot runs setup/run with bash; existing YAMLs rely on bash-isms.
    import shutil
    return shutil.which('bash') or SH


USER_SHELL = None


def filtered_environ(environ):
    return dict((k, v) for k, v in environ.items()
                if k not in JOB_VARS and not k.startswith('SKYPILOT_')
                and not k.startswith('_SKYDECK_'))


def base_env(paths, client):
    """The environment new jobs start from: the client's (a login shell over SSH), saved to
    env.json (0600) so jobs started later by a driver's report or by the daemon get the same
    one. It carries the client's umask, which the driver restores for the job."""
    env = filtered_environ(os.environ)
    if client:
        env[private.UMASK_VAR] = private.user_umask_text()
        blob = json.dumps(env, sort_keys=True)
        try:
            with open(paths.env_file) as f:
                same = f.read() == blob
        except OSError:
            same = False
        if not same:
            tmp = '%s.%d.tmp' % (paths.env_file, os.getpid())
            with os.fdopen(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), 'w') as f:
                f.write(blob)
            os.replace(tmp, paths.env_file)
        return env
    try:
        with open(paths.env_file) as f:
            return json.load(f)
    except (OSError, ValueError):
        return env


def warm(agent_path):
    """Look up the user shell and probe the waiter now, in this process: job_env in forked
    intermediates (without the waiter's launcher) then finds both known instead of each looking
    again."""
    global USER_SHELL
    if USER_SHELL is None:
        USER_SHELL = user_shell()
    waiter(agent_path)


def job_env(base, paths, agent_path, job_id, spec, cluster, stamp, cwd, chosen=(0,),
            cgroup=None, secrets=None, dev_env=None):
    warm(agent_path)
    env = dict(base)
    env.update(dev_env or {})  # the job's own envs may still name devices themselves
    env.update(spec['envs'])
    env.update(secrets or {})  # the driver's environment is the only place they are kept
    name = cluster.get('cluster_name') or 'local'
    ips = '\n'.join(nodes.ip_of(cluster, i) for i in chosen)
    gpus = sum((spec['resources'].get('accelerators') or {}).values())
    info = dict(cluster.get('cluster_info') or {})
    info.setdefault('cluster_name', name)
    count = str(len(chosen))
    env.update({
        'SKYDECK_JOB_ID': str(job_id),
        'SKYDECK_NUM_NODES': count,
        'SKYDECK_NODE_RANK': '0',
        'SKYDECK_NODE_IPS': ips,
        'SKYDECK_CLUSTER_NAME': name,
        'SKYPILOT_TASK_ID': 'sky-%s_%s_%d' % (stamp, name, job_id),
        'SKYPILOT_NUM_NODES': count,
        'SKYPILOT_NODE_RANK': '0',
        'SKYPILOT_NODE_IPS': ips,
        'SKYPILOT_SETUP_NODE_RANK': '0',
        'SKYPILOT_SETUP_NODE_IPS': ips,
        'SKYPILOT_NUM_GPUS_PER_NODE': str(int(math.ceil(gpus))),
        'SKYPILOT_CLUSTER_INFO': json.dumps(info, sort_keys=True),
        MARKER_VAR: paths.marker(job_id),
        '_SKYDECK_PY': sys.executable or 'python3',
        '_SKYDECK_AGENT': agent_path,
        '_SKYDECK_BASE': paths.base,
        '_SKYDECK_JOB': str(job_id),
        '_SKYDECK_DIR': paths.job_dir(job_id),
        '_SKYDECK_SHELL': USER_SHELL,
        '_SKYDECK_CWD': cwd,
        '_SKYDECK_CGROUP': cgroup or '',
        '_SKYDECK_SETUP_UNSET': setup_unset(dev_env, spec),
        '_SKYDECK_WAIT': waiter(agent_path),
    })
    if spec.get('name') is not None:
        env['SKYDECK_JOB_NAME'] = spec['name']
    return env


def resolve_workdir(workdir):
    if not workdir:
        home = os.path.expanduser('~')
        return (home if os.path.isdir(home) else '/'), None
    path = os.path.expanduser(workdir)
    if not os.path.isdir(path):
        return None, 'workdir does not exist or is not a directory: %s' % workdir
    return os.path.abspath(path), None


def task_stamp(submitted_at):
    """The submit time as SKYPILOT_TASK_ID spells it."""
    stamp = time.strftime('%Y-%m-%d-%H-%M-%S', time.localtime(submitted_at))
    return stamp + '-%06d' % int((submitted_at % 1) * 1e6)


WAITER_OFF_VAR = 'SKYDECK_DRIVER_WAITER'  # "0": always the sh driver (tests of that path)
_WAITER = {}


def waiter(agent_path):
    """The waiter binary for this machine, if the agent carries one that answers its probe
    (one run per agent process); '' keeps the sh driver resident, which works the same."""
    if os.environ.get(WAITER_OFF_VAR) == '0':
        return ''
    if agent_path not in _WAITER:  # asked twice a job start: the path is worked out once
        path = os.path.join(os.path.dirname(os.path.abspath(agent_path)), 'bin',
                            'skydeck-wait-' + os.uname().machine)
        _WAITER[agent_path] = path if _probe(path) else ''
    return _WAITER[agent_path]


def _probe(path):
    if not os.access(path, os.X_OK):
        try:  # a package format that drops the mode (our own agent dir: hashed, not the mode)
            if os.path.isfile(path) and not os.path.islink(path):
                os.chmod(path, 0o700)
        except OSError:
            return False
        if not os.access(path, os.X_OK):
            return False
    r, w = os.pipe()
    try:
        pid = os.posix_spawn(path, [path, '--probe'], {}, file_actions=[(os.POSIX_SPAWN_DUP2, w, 1)])
    except OSError:
        return False
    finally:
        os.close(w)
    try:
        out = os.read(r, 64)
    finally:
        os.close(r)
    return os.waitpid(pid, 0)[1] == 0 and out == b'skydeck-wait 5\n'


def setup_unset(dev_env, spec):
    """The device variables setup runs without. SkyPilot runs setup with CUDA_VISIBLE_DEVICES
    unset (every GPU of the node visible, e.g. to build kernels); a job's own envs stay."""
    own = set(spec['envs']) | set(spec.get('secret_names') or ())
    return ' '.join(sorted(k for k in (dev_env or {}) if k not in own))


def driver_argv(job_id, env, spec):
    """The sh driver; for a job without setup, the waiter alone when there is one (it does the
    sh driver's prelude itself: one exec fewer per job start)."""
    if env.get('_SKYDECK_WAIT') and not (spec.get('setup') or '').strip():
        return [env['_SKYDECK_WAIT'], '--driver', 'skydeck-job-%d' % job_id]
    return [SH, '-c', DRIVER, 'skydeck-job-%d' % job_id]


def gang_argv(ctx, job_id):
    """A job with ranks on workers is driven by the agent itself (gang.py): it has N exits to
    gather and the other ranks to stop when one fails, which sh cannot do safely."""
    return ctx.self_argv('_gang', str(job_id))
