"""MOUNT_CACHED: a job is not finished until what it wrote through a cached mount reached the bucket.

The client records each cached mount of this node in <base>/storage/cached/<id>.json (see the
README, "Cached mounts"). rclone keeps one metadata file per cached object under
<stateDir>/cache/vfsMeta/ and marks it "Dirty": true until its upload succeeded; a mount has
flushed when no such file is left and its rclone is alive (the same rule as the client's
src/core/storage/flush.ts). A dead rclone with dirty files never uploads them: that fails at once.
"""
import json
import os
import re
import stat
import time

DEFAULT_LIMIT = 1800.0
# A registry entry is a file on the node, not proof: its limit is capped, its stateDir must lie
# under <base>/storage (where the client puts every mount's state), and only regular files are
# read, a bounded amount each (rclone's metadata is a few hundred bytes).
MAX_LIMIT = 86400.0
MAX_META = 64 * 1024
DIRTY = re.compile(rb'"Dirty":\s*true')


def registry_dir(paths):
    return os.path.join(paths.base, 'storage', 'cached')


def cached_mounts(paths):
    """The registered cached mounts, in name order; unreadable entries are skipped."""
    d = registry_dir(paths)
    try:
        names = sorted(n for n in os.listdir(d) if n.endswith('.json'))
    except OSError:
        return []
    out = []
    root = os.path.realpath(os.path.join(paths.base, 'storage')) + os.sep
    for n in names:
        try:
            with open(os.path.join(d, n)) as f:
                m = json.load(f)
            if not (isinstance(m, dict) and isinstance(m.get('stateDir'), str)):
                continue
            meta = os.path.realpath(os.path.join(m['stateDir'], 'cache', 'vfsMeta'))
            if meta.startswith(root):
                out.append(dict(m, meta=meta))
        except (OSError, ValueError):
            continue
    return out


def _alive(pid):
    if not isinstance(pid, int) or pid <= 0:
        return True  # no pid recorded: judge by the cache alone
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # exists, owned by someone else
    return True


def dirty_files(meta):
    """The dirty metadata files under meta (a resolved path; symlinks below it are not followed)."""
    found = []
    for root, _dirs, files in os.walk(meta):
        for n in files:
            p = os.path.join(root, n)
            try:
                # O_NONBLOCK: a FIFO planted between the check and the open cannot block the wait.
                fd = os.open(p, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
                try:
                    if not stat.S_ISREG(os.fstat(fd).st_mode):
                        continue
                    if DIRTY.search(os.read(fd, MAX_META)):
                        found.append(os.path.relpath(p, meta))
                finally:
                    os.close(fd)
            except OSError:
                continue  # replaced while reading (or a symlink): looked at again on the next poll
    return found


def _label(m):
    return m.get('label') or m.get('dst') or m['stateDir']


def wait_flushed(paths, job_id, say, cancelled, now=time.monotonic, sleep=time.sleep):
    """Blocks until every cached mount has flushed. Returns None when all did (or the job was
    cancelled: cancelled() is polled), else the reason the job fails, naming the mount."""
    mounts = cached_mounts(paths)
    if not mounts:
        return None
    start = now()
    shown = {}
    delay = 0.1
    while True:
        if cancelled():
            return None
        pending = []
        for m in mounts:
            left = dirty_files(m['meta'])
            if not left:
                continue
            label = _label(m)
            if not _alive(m.get('pid')):
                return ('%s: rclone mount exited with %d file(s) not uploaded; they stay in %s/cache'
                        % (label, len(left), m['stateDir']))
            limit = m.get('timeout_s')
            limit = min(float(limit), MAX_LIMIT) if isinstance(limit, (int, float)) and limit > 0 else DEFAULT_LIMIT
            if now() - start > limit:
                return ('%s: write cache not uploaded within %g s (%d file(s) left); see %s/rclone.log'
                        % (label, limit, len(left), m['stateDir']))
            pending.append((label, len(left)))
        if not pending:
            return None
        for label, n in pending:
            if shown.get(label) != n:
                shown[label] = n
                say('waiting for %s write cache to upload (%d file%s)' % (label, n, '' if n == 1 else 's'))
        sleep(delay)
        delay = min(delay * 2, 2.0)


def wait_for_job(paths, job_id):
    """wait_flushed for a job of this node: progress lines go to the job's log."""
    log = paths.log_file(job_id)
    flag = os.path.join(paths.job_dir(job_id), 'cancelled')

    def say(line):
        try:
            with open(log, 'ab') as f:
                f.write(('[skydeck] %s\n' % line).encode('utf-8', 'replace'))
        except OSError:
            pass
    return wait_flushed(paths, job_id, say, lambda: os.path.exists(flag))
