"""Test hooks of the self-stop (SKYDECK_SHUTDOWN_COMMAND, the metadata/API endpoints, a CA).

They move where the VM's token goes and what runs as shutdown, so they are never read from the
environment of the process that acts: the daemon and the self-stop may descend from a job's
driver, whose environment holds the task's `envs`. Only a client of the agent (the user's
login over ssh, or the editor for a `local` cluster) can set them, and only from its own
environment: `record` copies them into `test-hooks.json` (0600) in the base dir, and the
self-stop reads that file alone. A client running inside a job (it carries the job marker,
which the agent sets after the task's envs, so envs cannot remove it) records nothing.
"""
import json
import os

from .paths import MARKER_VAR

NAMES = ('SKYDECK_SHUTDOWN_COMMAND', 'SKYDECK_GCE_METADATA_URL', 'SKYDECK_GCE_API_URL',
         'SKYDECK_AZURE_IMDS_URL', 'SKYDECK_ARM_URL', 'SKYDECK_SELFSTOP_CA')
_loaded = {}


def _file(paths):
    return os.path.join(paths.base, 'test-hooks.json')


def record(paths, environ=None):
    """At the start of a client call. A client without hooks leaves the recorded ones (a test's
    plain status call must not turn a harmless shutdown command back into a real one)."""
    environ = os.environ if environ is None else environ
    if environ.get(MARKER_VAR):
        return
    values = dict((k, environ[k]) for k in NAMES if environ.get(k))
    if not values:
        return
    paths.ensure()
    tmp = '%s.%d.tmp' % (_file(paths), os.getpid())
    with os.fdopen(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), 'w') as f:
        json.dump(values, f)
    os.replace(tmp, _file(paths))


def load(paths):
    """In the self-stop, before any hook is used."""
    global _loaded
    try:
        with open(_file(paths)) as f:
            data = json.load(f)
        _loaded = dict((k, v) for k, v in data.items() if k in NAMES and isinstance(v, str))
    except (OSError, ValueError, AttributeError):
        _loaded = {}


def get(name, default=None):
    return _loaded.get(name) or default
