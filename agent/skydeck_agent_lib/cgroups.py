"""One cgroup per job, where the node lets us create one: the reliable way to find every
process of a job, including those that left its session and dropped its marker.

Each job's cgroup is <our own cgroup>/skydeck-<marker prefix>/<db id>-<job id>, so it inherits
every limit the agent itself runs under. cgroup v2 is preferred (one atomic cgroup.kill), then a
v1 freezer or pids hierarchy (membership only; the kill loops until the group is empty). The
memory, cpuset and systemd hierarchies are never touched. Where none is writable (no root, no
delegated subtree, read-only /sys/fs/cgroup) jobs get no cgroup and the marker scan alone finds
their processes. The driver moves itself in before it starts anything (driver.py).
"""
import errno
import os
import re
import signal
import time

PREFER_ENV = 'SKYDECK_TEST_CGROUP'  # tests only: 'v1' picks a v1 hierarchy over v2
V1_CONTROLLERS = ('freezer', 'pids')

_where = None  # per process: (kind, mount, own path) or (None, why)


_mount_cache = None


def _mounts():
    """[(fstype, mount point, super options)] of the cgroup file systems (read once)."""
    global _mount_cache
    if _mount_cache is None:
        _mount_cache = _read_mounts()
    return _mount_cache


def _read_mounts():
    out = []
    try:
        with open('/proc/self/mountinfo') as f:
            for line in f:
                left, _, right = line.partition(' - ')
                fields, rfields = left.split(), right.split()
                if len(fields) >= 5 and len(rfields) >= 3 and rfields[0] in ('cgroup', 'cgroup2'):
                    point = fields[4].replace('\\040', ' ')
                    out.append((rfields[0], point, rfields[2].split(',')))
    except OSError:
        pass
    return out


def _own():
    """{'': v2 path, controller: v1 path} of this process."""
    own = {}
    try:
        with open('/proc/self/cgroup') as f:
            for line in f:
                parts = line.rstrip('\n').split(':', 2)
                if len(parts) == 3:
                    for c in (parts[1].split(',') if parts[1] else ['']):
                        own[c] = parts[2]
    except OSError:
        pass
    return own


def _candidates():
    mounts, own = _mounts(), _own()
    v2 = [('cgroup2', m, own['']) for t, m, _ in mounts if t == 'cgroup2' and '' in own]
    v1 = []
    for c in V1_CONTROLLERS:
        for t, m, opts in mounts:
            if t == 'cgroup' and c in opts and c in own:
                v1.append(('cgroup1', m, own[c]))
                break
    return (v1 + v2) if os.environ.get(PREFER_ENV) == 'v1' else (v2 + v1)


def _strip_ours(path, prefix):
    """Our own cgroup, minus a job cgroup of this base dir we may be running in (a driver's
    report starting the next jobs): new job cgroups are siblings, never nested in a job's."""
    m = re.match(r'^(.*?)/skydeck-%s(/[^/]*)?$' % re.escape(prefix), path)
    return m.group(1) if m else path


def where(prefix):
    """(kind, root dir for this base dir's job cgroups) or (None, why not)."""
    global _where
    if _where is None:
        _where = _probe(prefix)
    return _where


def _probe(prefix):
    if not os.path.isdir('/sys/fs/cgroup') and not _mounts():
        return None, 'no cgroup file system'
    why = 'no writable cgroup hierarchy (needs root or a delegated cgroup subtree)'
    for kind, mount, own in _candidates():
        parent = os.path.normpath(mount + '/' + _strip_ours(own, prefix))
        root = os.path.join(parent, 'skydeck-' + prefix)
        # Moving a process needs write access to the common ancestor's cgroup.procs too.
        if not os.access(os.path.join(parent, 'cgroup.procs'), os.W_OK):
            continue
        try:
            os.mkdir(root, 0o755)
        except FileExistsError:
            pass
        except OSError as e:
            why = 'cannot create %s: %s' % (root, e.strerror)
            continue
        if os.access(os.path.join(root, 'cgroup.procs'), os.W_OK):
            return kind, root
    return None, why


def db_tag(db_id):
    """The database's part of a job cgroup's name (<tag>-<job id>): a replaced jobs.db never
    names an old database's cgroups."""
    return re.sub('[^0-9A-Za-z]', '', str(db_id or ''))[:8] or '0'


def plan(prefix, tag):
    """Where one job's cgroup goes: (kind, path), or (None, None) where jobs get none. Nothing
    is created: make() does that, in the process that starts the job."""
    kind, root = where(prefix)
    return (kind, os.path.join(root, tag)) if kind else (None, None)


def make(path):
    """Create a job's cgroup (planned by plan()); an empty one left there is reused, a populated
    one is an error (it is never shared with processes we did not start), as is any other
    failure: the caller then starts the job without one."""
    for attempt in range(3):
        try:
            os.mkdir(path, 0o755)
            return
        except FileExistsError:
            if pids(path) or not os.path.isdir(path):
                raise OSError(errno.EEXIST, 'in use by other processes', path)
            return
        except FileNotFoundError:
            if attempt == 2:
                raise
        try:  # an idle daemon removed the root (remove_root), maybe a moment ago
            os.mkdir(os.path.dirname(path), 0o755)
        except FileExistsError:
            pass


def valid(path, prefix):
    """A path from jobs.db is used only if it is one of this base dir's job cgroups."""
    if not isinstance(path, str) or '/../' in path or '/./' in path:
        return False
    parent = os.path.dirname(path)
    if os.path.basename(parent) != 'skydeck-' + prefix or not re.match(r'^[0-9A-Za-z]+-\d+(\.[0-9a-f]+)?$', os.path.basename(path)):
        return False
    return any(path.startswith(m.rstrip('/') + '/') for _, m, _ in _mounts())


def pids(path):
    try:
        with open(os.path.join(path, 'cgroup.procs')) as f:
            return [int(p) for p in f.read().split()]
    except (OSError, ValueError):
        return []


def _write(path, name, value):
    fd = os.open(os.path.join(path, name), os.O_WRONLY)
    try:
        os.write(fd, value.encode())
    finally:
        os.close(fd)


def _signal_member(path, pid, sig):
    """Signal pid only while it is verifiably still in this cgroup: a pidfd pins the process,
    so a pid reused by another job in between is never hit (Python < 3.9: plain kill)."""
    try:
        fd = os.pidfd_open(pid)
    except AttributeError:
        fd = None
    except OSError as e:
        if e.errno == errno.ESRCH:
            return
        fd = None  # a kernel without pidfds (< 5.3)
    if fd is None:
        try:
            os.kill(pid, sig)
        except OSError:
            pass
        return
    try:
        if member(path, pid):
            signal.pidfd_send_signal(fd, sig)
    except OSError:
        pass
    finally:
        os.close(fd)


def member(path, pid='self'):
    """Whether the process is in the cgroup at path; None if that cannot be read. Its
    /proc/<pid>/cgroup names the path below the mount (or the cgroup namespace root); the last
    two components are unique to this base dir and job."""
    suffix = '/%s/%s' % (os.path.basename(os.path.dirname(path)), os.path.basename(path))
    try:
        with open('/proc/%s/cgroup' % pid) as f:
            return any(line.rstrip('\n').endswith(suffix) for line in f)
    except OSError:
        return None


def kill(path, sig):
    """Signal every process in the job's cgroup. SIGKILL: until the group is empty."""
    if not os.path.isdir(path):
        return False
    if sig == signal.SIGKILL and os.path.exists(os.path.join(path, 'cgroup.kill')):
        try:
            _write(path, 'cgroup.kill', '1')  # atomic: no fork can slip past it
            return True
        except OSError:
            pass
    rounds = 50 if sig == signal.SIGKILL else 1
    for i in range(rounds):
        members = pids(path)
        if not members:
            break
        for pid in members:
            _signal_member(path, pid, sig)
        if i + 1 < rounds:
            time.sleep(0.002)  # SIGKILLed members leave the group as they exit
    return True


def join(path, pid=0):
    _write(path, 'cgroup.procs', str(pid))


def leave(path):
    """Move this process out of a job cgroup (to where the job cgroups hang from). A process
    not in it is left where it is: a move costs an RCU grace period under a global lock, and a
    waiter driver's reporter never was in its job's cgroup."""
    if member(path) is False:
        return True
    for target in (os.path.dirname(os.path.dirname(path)), os.path.dirname(path)):
        try:
            join(target)
            return True
        except OSError:
            continue
    return False


def remove_root(prefix):
    """When nothing runs: this base dir's cgroup directory too, if no job cgroup is left."""
    kind, root = where(prefix)
    if kind:
        remove(root)


def remove(path):
    """rmdir once empty; True when it is gone."""
    try:
        os.rmdir(path)
        return True
    except FileNotFoundError:
        return True
    except OSError:
        return False
