"""Validation of a submitted job spec; everything is checked before the database is opened."""
import math
import os
import re

from .errors import AgentError

MAX_NAME = 256
MAX_SCRIPT = 1 << 20
MAX_PATH = 4096
# Linux refuses a single environment string longer than 128 KiB (MAX_ARG_STRLEN).
MAX_ENV_ENTRY = 128 * 1024 - 1
MAX_ENV_TOTAL = 1 << 20
# Like SkyPilot: a job that asks for nothing still takes half a CPU, so a node is not
# flooded with an unbounded number of concurrent jobs.
DEFAULT_CPUS = 0.5

_ENV_NAME = re.compile(r'^[A-Za-z_][A-Za-z0-9_]*$')
_ACC_NAME = re.compile(r'^[A-Za-z0-9][A-Za-z0-9_.\-]{0,63}$')
_KEYS = ('name', 'user', 'setup', 'run', 'envs', 'secrets', 'workdir', 'resources', 'num_nodes')


def invalid(message):
    return AgentError('invalid_spec', message)


def _number(v, field, allow_none=True):
    if v is None and allow_none:
        return None
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise invalid('%s must be a number' % field)
    if not math.isfinite(v):
        raise invalid('%s must be finite' % field)
    if v < 0:
        raise invalid('%s must be >= 0 (got %r)' % (field, v))
    return float(v)


def _text(v, field, limit, allow_none=True):
    if v is None and allow_none:
        return None
    if not isinstance(v, str):
        raise invalid('%s must be a string' % field)
    if len(v) > limit:
        raise invalid('%s is longer than %d characters' % (field, limit))
    _utf8(v, field)
    return v


def _utf8(v, field):
    # JSON may carry lone surrogates (\ud800) that no file, env or database can hold.
    try:
        v.encode('utf-8')
    except UnicodeEncodeError:
        raise invalid('%s is not valid Unicode text (lone surrogate)' % field)


def parse_accelerators(v, field='resources.accelerators'):
    """"L4", "L4:0.25", "L4:1,A10G:2" or {"L4": 0.25} -> {"L4": 0.25}; counts must be > 0."""
    if v is None:
        return None
    if isinstance(v, str):
        out = {}
        for part in v.split(','):
            name, _, count = part.strip().partition(':')
            try:
                out[name] = float(count) if count else 1.0
            except ValueError:
                raise invalid('%s: bad count in %r' % (field, part))
        v = out
    if not isinstance(v, dict):
        raise invalid('%s must be a string like "L4:0.25" or an object like {"L4": 0.25}' % field)
    out = {}
    for name, count in v.items():
        if not isinstance(name, str) or not _ACC_NAME.match(name):
            raise invalid('%s: bad accelerator name %r' % (field, name))
        c = _number(count, '%s.%s' % (field, name), allow_none=False)
        if c <= 0:
            raise invalid('%s.%s must be > 0' % (field, name))
        out[name] = c
    return out or None


def parse_resources(v, field='resources', defaults=True):
    if v is None:
        v = {}
    if not isinstance(v, dict):
        raise invalid('%s must be an object' % field)
    extra = set(v) - set(('cpus', 'memory', 'accelerators'))
    if extra:
        raise invalid('%s: unknown keys %s' % (field, ', '.join(sorted(extra))))
    cpus = _number(v.get('cpus'), field + '.cpus')
    memory = _number(v.get('memory'), field + '.memory')
    if defaults:
        cpus = DEFAULT_CPUS if cpus is None else cpus
        memory = 0.0 if memory is None else memory
    return {'cpus': cpus, 'memory': memory,
            'accelerators': parse_accelerators(v.get('accelerators'), field + '.accelerators')}


def _envs(v, field='envs'):
    if v is None:
        return {}
    if not isinstance(v, dict):
        raise invalid('%s must be an object of name -> string' % field)
    out = {}
    total = 0
    for k, val in v.items():
        if not _ENV_NAME.match(k) or len(k) > MAX_NAME:
            raise invalid('%s: %r is not a valid environment variable name' % (field, k[:80]))
        if isinstance(val, bool) or not isinstance(val, (str, int, float)):
            raise invalid('%s.%s must be a string (got %s)' % (field, k, type(val).__name__))
        val = val if isinstance(val, str) else str(val)
        if '\0' in val:
            raise invalid('%s.%s contains a NUL character' % (field, k))
        _utf8(val, field + '.' + k)
        size = len(k.encode('utf-8')) + 1 + len(val.encode('utf-8'))
        if size > MAX_ENV_ENTRY:
            raise invalid('%s.%s is too large (%d bytes; limit %d)' % (field, k, size, MAX_ENV_ENTRY))
        total += size
        out[k] = val
    if total > MAX_ENV_TOTAL:
        raise invalid('%s are too large in total (%d bytes)' % (field, total))
    return out


def split_secrets(spec):
    """The validated spec as jobs.db stores it (secret names only) and the secret values."""
    values = spec.pop('secrets')
    spec['secret_names'] = sorted(values)
    return spec, values


def _login_name():
    name = os.environ.get('USER') or os.environ.get('LOGNAME')
    if not name:
        try:
            import pwd
            name = pwd.getpwuid(os.getuid()).pw_name
        except (ImportError, KeyError):
            name = str(os.getuid())
    return name


def validate(spec):
    """Return the normalized spec, or raise AgentError('invalid_spec')."""
    if not isinstance(spec, dict):
        raise invalid('the job spec must be a JSON object')
    extra = set(spec) - set(_KEYS)
    if extra:
        raise invalid('unknown spec keys: %s' % ', '.join(sorted(extra)))
    num_nodes = spec.get('num_nodes', 1)
    if num_nodes is None:
        num_nodes = 1
    if isinstance(num_nodes, bool) or not isinstance(num_nodes, int) or num_nodes < 1:
        raise invalid('num_nodes must be an integer >= 1')

    out = {
        'name': _text(spec.get('name'), 'name', MAX_NAME),
        'user': _text(spec.get('user'), 'user', MAX_NAME),
        'setup': _text(spec.get('setup'), 'setup', MAX_SCRIPT),
        'run': _text(spec.get('run'), 'run', MAX_SCRIPT),
        'envs': _envs(spec.get('envs')),
        # Values travel apart from the stored spec (split_secrets, pending_secrets.py).
        'secrets': _envs(spec.get('secrets'), 'secrets'),
        'workdir': _text(spec.get('workdir'), 'workdir', MAX_PATH),
        'resources': parse_resources(spec.get('resources')),
        'num_nodes': num_nodes,
    }
    for name, count in (out['resources']['accelerators'] or {}).items():
        if count > 1 and count != int(count):
            # Ray, which runs SkyPilot's jobs, refuses these too: a share of one device, or
            # whole devices.
            raise invalid('resources.accelerators.%s: a count above 1 must be whole (got %r)'
                          % (name, count))
    for field in ('name', 'user', 'workdir'):
        if out[field] is not None and '\0' in out[field]:
            raise invalid('%s contains a NUL character' % field)
    if out['user'] is None:
        out['user'] = _login_name()
    return out
