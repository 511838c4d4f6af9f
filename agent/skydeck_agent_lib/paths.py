"""Where the agent keeps its state under the base dir, and the per-base-dir job marker."""
import os

from .private import ensure_private_dir

MARKER_VAR = 'SKYDECK_JOB_MARKER'


class Paths(object):
    def __init__(self, base):
        self.base = os.path.realpath(os.path.expanduser(base))
        self.db = os.path.join(self.base, 'jobs.db')
        self.logs = os.path.join(self.base, 'logs')
        self.jobs = os.path.join(self.base, 'jobs')
        self.daemon_lock = os.path.join(self.base, 'daemon.lock')
        self.daemon_pid = os.path.join(self.base, 'daemon.pid')
        self.daemon_log = os.path.join(self.base, 'daemon.log')
        self.daemon_wake = os.path.join(self.base, 'daemon.wake')  # daemon_ctl.wake
        self.env_file = os.path.join(self.base, 'env.json')
        self._prefix = None

    @property
    def marker_prefix(self):
        # Two agents with different base dirs on one machine must never touch each other's
        # jobs, so the marker names the base dir as well as the job. (hashlib loads OpenSSL:
        # imported only when a marker is needed, not on every short CLI call.)
        if self._prefix is None:
            import hashlib
            self._prefix = hashlib.sha256(self.base.encode('utf-8')).hexdigest()[:16]
        return self._prefix

    def log_dir(self, job_id):
        return os.path.join(self.logs, str(job_id))

    def log_file(self, job_id):
        return os.path.join(self.logs, str(job_id), 'run.log')

    def job_dir(self, job_id):
        return os.path.join(self.jobs, str(job_id))

    def marker(self, job_id):
        return '%s:%d' % (self.marker_prefix, job_id)

    def ensure(self):
        ensure_private_dir(self.base)  # also closes a base an older agent left 0755
        for d in (self.logs, self.jobs):
            if not os.path.isdir(d):
                os.makedirs(d, 0o700, exist_ok=True)


def default_base():
    return os.environ.get('SKYDECK_BASE_DIR') or os.path.join(os.path.expanduser('~'), '.skydeck')
