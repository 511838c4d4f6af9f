"""Secret values of a job, kept out of jobs.db.

The spec stored in jobs.db names a job's secrets (`secret_names`), never their values. A job
that starts at submit gets the values straight into its driver's environment. A job that has
to wait (PENDING) keeps them in `pending/<job_id>.json` (0600, in the 0700 base): a file,
not the memory of the submitting process, because that process (a CLI call, a serve session)
may be gone by the time the job fits, and a daemon or a driver's report starts it instead.
The claim reads the file inside its write transaction and the file is removed as soon as the
claim committed, so once a job has started its values exist only in its processes' memory.
A file whose job is no longer PENDING (cancelled while waiting, or claimed by a starter that
died) is removed by the next scheduling step.
"""
import json
import os


def _dir(paths):
    return os.path.join(paths.base, 'pending')


def _file(paths, job_id):
    return os.path.join(_dir(paths), '%d.json' % job_id)


def store(paths, job_id, values):
    """Inside submit's write transaction, before it commits (a failure rolls the job back)."""
    if not values:
        return
    d = _dir(paths)
    os.makedirs(d, 0o700, exist_ok=True)
    tmp = '%s.%d.tmp' % (_file(paths, job_id), os.getpid())
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, 'w') as f:
        json.dump(values, f)
    os.replace(tmp, _file(paths, job_id))


def take(paths, job_id, spec):
    """Inside the claim's write transaction: the values, or {} for a job without secrets."""
    if not spec.get('secret_names'):
        return {}
    try:
        with open(_file(paths, job_id)) as f:
            values = json.load(f)
    except (OSError, ValueError):
        return None  # lost (should not happen): the job must not run without them
    return dict((k, v) for k, v in values.items() if k in spec['secret_names'])


def sweep(paths, conn):
    """After a claim committed: drop the files of jobs that are no longer PENDING. A file with
    no row yet may belong to a submit still inside its transaction, so it stays."""
    try:
        names = os.listdir(_dir(paths))
    except OSError:
        return
    ids = [int(n[:-5]) for n in names if n.endswith('.json') and n[:-5].isdigit()]
    if not ids:
        return
    rows = conn.execute('SELECT job_id FROM jobs WHERE status != ? AND job_id IN (%s)'
                        % ','.join('?' * len(ids)), ['PENDING'] + ids).fetchall()
    for (job_id,) in rows:
        try:
            os.unlink(_file(paths, job_id))
        except OSError:
            pass
