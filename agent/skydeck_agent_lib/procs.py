"""Process inspection and signalling: /proc on Linux, `ps` as a best-effort fallback (macOS).

Identity of a driver = pid + start time (/proc/<pid>/stat field 22) + boot id, so a reused pid
or a restarted node is never mistaken for the job's driver.
"""
import os
import signal
from collections import namedtuple

from . import cgroups
from .paths import MARKER_VAR

BOOT_ID_ENV = 'SKYDECK_BOOT_ID_PATH'  # tests point this at a file to simulate a reboot
HAVE_PROC = os.path.isdir('/proc/self')

Stat = namedtuple('Stat', 'state ppid pgid sid start')


# In a container (podman writes /run/.containerenv, docker /.dockerenv) a restart of the
# container kills every process as a reboot does, under the same kernel boot id: the start
# time of the pid namespace's PID 1 tells the two lives apart.
CONTAINER_SEP = '+pid1:'
_IN_CONTAINER = os.path.exists('/run/.containerenv') or os.path.exists('/.dockerenv')


def boot_id():
    path = os.environ.get(BOOT_ID_ENV) or '/proc/sys/kernel/random/boot_id'
    try:
        with open(path) as f:
            kernel = f.read().strip()
        init = proc_stat(1) if _IN_CONTAINER and HAVE_PROC else None
        return kernel + CONTAINER_SEP + str(init.start) if init else kernel
    except OSError:
        pass
    import subprocess
    try:  # macOS: the boot time identifies the boot
        out = subprocess.run(['sysctl', '-n', 'kern.boottime'], stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, timeout=5, universal_newlines=True)
        return 'boottime:' + out.stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return 'unknown'


def same_boot(recorded, current):
    """One life of the node: equal ids, or a job recorded by an agent that predates the
    container suffix, under the same kernel boot (its pid and start time decide)."""
    if recorded == current or not recorded or CONTAINER_SEP in recorded:
        return recorded == current
    return recorded == current.partition(CONTAINER_SEP)[0]


def proc_stat(pid):
    """Stat of a process, or None if it does not exist."""
    if HAVE_PROC:
        try:
            fd = os.open('/proc/%d/stat' % pid, os.O_RDONLY)
            try:
                data = os.read(fd, 4096)
            finally:
                os.close(fd)
        except OSError:
            return None
        # comm (field 2) may contain spaces and parentheses: split after the last ')'.
        rest = data[data.rindex(b')') + 2:].split()
        return Stat(rest[0].decode(), int(rest[1]), int(rest[2]), int(rest[3]), int(rest[19]))
    import subprocess
    try:
        out = subprocess.run(['ps', '-o', 'stat=,ppid=,pgid=,sess=,lstart=', '-p', str(pid)],
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, timeout=5,
                             universal_newlines=True).stdout.split(None, 4)
    except (OSError, subprocess.SubprocessError):
        return None
    if len(out) < 5:
        return None
    return Stat(out[0][:1], int(out[1]), int(out[2]), int(out[3]), out[4].strip())


def gone(st):
    # A zombie has exited; PID 1 may take a while to reap it.
    return st is None or st.state in ('Z', 'X', 'x')


def is_same_process(pid, start):
    """Is `pid` alive and the very process that had this start time?"""
    st = proc_stat(pid)
    if gone(st):
        return False
    return start is None or st.start == start


def scan_markers(prefix, job_ids=None):
    """{job_id: [(pid, pgid)]} of live processes whose environment carries prefix:job_id."""
    needle = ('\0%s=%s:' % (MARKER_VAR, prefix)).encode()
    me = os.getpid()
    found = {}
    for pid, env in _environs(needle, me):
        i = env.find(needle)
        j = env.find(b'\0', i + len(needle))
        try:
            jid = int(env[i + len(needle):j if j >= 0 else len(env)])
        except ValueError:
            continue
        if job_ids is not None and jid not in job_ids:
            continue
        st = proc_stat(pid)
        if not gone(st):
            found.setdefault(jid, []).append((pid, st.pgid))
    return found


def _environs(needle, me):
    if HAVE_PROC:
        for name in os.listdir('/proc'):
            if not name.isdigit() or int(name) == me:
                continue
            try:
                fd = os.open('/proc/%s/environ' % name, os.O_RDONLY)
            except OSError:
                continue
            try:
                chunks = [b'\0']
                while True:
                    b = os.read(fd, 65536)
                    if not b:
                        break
                    chunks.append(b)
            except OSError:
                continue
            finally:
                os.close(fd)
            env = b''.join(chunks)
            if needle in env:
                yield int(name), env
        return
    # BSD ps: -E appends the environment to the command; same-user processes only.
    import subprocess
    try:
        out = subprocess.run(['ps', '-axww', '-E', '-o', 'pid=,command='], stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, timeout=10).stdout
    except (OSError, subprocess.SubprocessError):
        return
    for line in out.splitlines():
        parts = line.strip().split(None, 1)
        if len(parts) == 2 and parts[0].isdigit() and int(parts[0]) != me:
            env = b'\0' + parts[1].replace(b' ', b'\0') + b'\0'
            if needle in env:
                yield int(parts[0]), env


def signal_group(pgid, sig):
    try:
        os.killpg(pgid, sig)
        return True
    except (ProcessLookupError, PermissionError):
        return False


def kill_jobs(prefix, jobs, sig, current_boot):
    """Send `sig` to every process of these jobs and to nothing else.

    jobs: iterable of (job_id, driver_pid, driver_start, boot_id[, cgroup]). A job with a
    cgroup is signalled through it, each member once: nothing of the job can be outside it.
    Its driver may be (the waiter starts the job's shell straight inside and stays out): it
    blocks TERM anyway, so only a SIGKILL goes to it too, when it is verifiably the same
    process; one never recorded (its starter died) is looked for by marker.
    The others (no cgroup on this node, or it is gone): the driver's group is signalled only
    when the driver is verifiably the same process, and every process carrying the job's marker
    has its whole process group signalled: a group lies inside one session and the session was
    created by the marked process or one of its marked ancestors, so every member descends from
    the job. Returns the number of jobs signalled through a cgroup plus groups signalled.
    """
    jobs = list(jobs)
    if not jobs:
        return 0
    done, via_cgroup = set(), 0
    rest = []
    for job in jobs:
        cg = job[4] if len(job) > 4 else None
        if cg and cgroups.valid(cg, prefix) and cgroups.kill(cg, sig):
            via_cgroup += 1
            if sig == signal.SIGKILL and not _kill_driver(job[1:4], sig, current_boot):
                rest.append(job)
        else:
            rest.append(job)
    if not rest:
        return via_cgroup
    for job_id, pid, start, boot in (j[:4] for j in rest):
        if pid and same_boot(boot, current_boot) and is_same_process(pid, start):
            if signal_group(pid, sig):
                done.add(pid)
    for procs in scan_markers(prefix, set(j[0] for j in rest)).values():
        for pid, pgid in procs:
            if pgid in done:
                continue
            if pgid > 1 and signal_group(pgid, sig):
                done.add(pgid)
            else:
                try:
                    os.kill(pid, sig)
                except (ProcessLookupError, PermissionError):
                    pass
    return via_cgroup + len(done)


def _kill_driver(who, sig, current_boot):
    """sig to the job's driver alone, if it is verifiably the recorded process (a pidfd pins
    it between the check and the signal). False if no driver was recorded."""
    pid, start, boot = who
    if not pid:
        return False
    if not same_boot(boot, current_boot):
        return True
    try:
        fd = os.pidfd_open(pid)
    except (AttributeError, OSError):
        fd = None
    try:
        if is_same_process(pid, start):
            if fd is not None:
                signal.pidfd_send_signal(fd, sig)
            else:
                os.kill(pid, sig)
    except OSError:
        pass
    finally:
        if fd is not None:
            os.close(fd)
    return True


def reset_child_signals():
    """Signals Python ignores (SIGPIPE, SIGXFSZ) would stay ignored across exec."""
    return tuple(s for s in (getattr(signal, 'SIGPIPE', None), getattr(signal, 'SIGXFSZ', None))
                 if s is not None)
