"""Autostop / autodown: the daemon decides when the cluster has been idle long enough and then
either runs the command the client configured, or (`action`) stops the cluster itself with
selfstop.py: an OS shutdown of every node, or the GCP / Azure / Kubernetes API through the
node's own identity.

Idle = no job PENDING / SETTING_UP / RUNNING and, with wait_for "jobs_and_ssh" (the default),
no interactive SSH session (an sshd "user@pts/N" process): a user in a terminal is not idle.
The clock restarts at every job submit or end, at every configure, and while a session is
open — so a job that arrives before the deadline cancels the pending stop. The command runs
once per idle period, detached, its output in autostop.log.

On a managed-jobs controller cluster (`managed_jobs_db`: the controller's store on this node)
the node is busy too while any managed job is unfinished (not terminal, or its cluster not yet
torn down): the controller runs outside the agent's jobs, and stopping it would leave job
clusters with nobody watching them. A store that cannot be read counts as busy.

`hold_seconds`: a launch configures autostop while it provisions (a client that dies mid-launch
must not leave a cluster billing forever) but submits its job only after the workdir upload and
the rest; until then the node is held busy (`hold_until` = configure time + hold). The launch
configures again without the hold once its job is in; a launch that died never does, so idle
time counts from the hold's end and the cluster still stops, hold + idle minutes later.
"""
import os
import sqlite3
import time

from . import db, driver, spawn
from .errors import bad_args
from .states import NON_TERMINAL, sql_list

WAIT_FOR = ('jobs_and_ssh', 'jobs')
ACTIONS = ('shutdown', 'gcp', 'azure', 'kubernetes')
KEYS = ('idle_minutes', 'down', 'command', 'action', 'wait_for', 'managed_jobs_db', 'hold_seconds')
# A day: a launch's upload and setup planning take minutes; a longer hold is a mistake.
MAX_HOLD_SECONDS = 86400
# The managed jobs' terminal statuses (src/core/managed/states.ts TERMINAL).
MANAGED_TERMINAL = ('SUCCEEDED', 'FAILED', 'FAILED_SETUP', 'FAILED_NO_RESOURCE', 'FAILED_CONTROLLER', 'CANCELLED')


def parse(value):
    if value is None:
        return None
    if not isinstance(value, dict) or set(value) - set(KEYS):
        raise bad_args('autostop must be an object {idle_minutes, down?, command | action, wait_for?} or null')
    minutes = value.get('idle_minutes')
    if isinstance(minutes, bool) or not isinstance(minutes, (int, float)) or not 0 <= minutes <= 525600:
        raise bad_args('autostop.idle_minutes must be a number of minutes between 0 and 525600')
    command, action = value.get('command'), value.get('action')
    if (command is None) == (action is None):
        raise bad_args('autostop needs exactly one of command (argv) or action (%s)' % ', '.join(ACTIONS))
    if command is not None and (not isinstance(command, list) or not command
                                or not all(isinstance(a, str) and a for a in command)):
        raise bad_args('autostop.command must be a non-empty list of strings (argv)')
    if action is not None and action not in ACTIONS:
        raise bad_args('autostop.action must be one of %s' % ', '.join(ACTIONS))
    wait_for = value.get('wait_for', 'jobs_and_ssh')
    if wait_for not in WAIT_FOR:
        raise bad_args('autostop.wait_for must be one of %s' % ', '.join(WAIT_FOR))
    managed = value.get('managed_jobs_db')
    if managed is not None and (not isinstance(managed, str) or not managed or len(managed) > 4096 or '\0' in managed
                                or not os.path.isabs(os.path.expanduser(managed))):
        raise bad_args('autostop.managed_jobs_db must be an absolute path (or ~/...)')
    hold = value.get('hold_seconds', 0)
    if isinstance(hold, bool) or not isinstance(hold, (int, float)) or not 0 <= hold <= MAX_HOLD_SECONDS:
        raise bad_args('autostop.hold_seconds must be a number of seconds between 0 and %d' % MAX_HOLD_SECONDS)
    now = time.time()
    return {'idle_minutes': minutes, 'down': bool(value.get('down', False)), 'command': command,
            'action': action, 'wait_for': wait_for, 'managed_jobs_db': managed, 'set_at': now,
            'hold_until': now + hold if hold else None}


def managed_activity(path):
    """The controller store's word: None = busy (an unfinished managed job, or unreadable), else
    when a managed job last changed (epoch seconds; 0 with no store or no job yet)."""
    path = os.path.expanduser(path)
    if not os.path.exists(path):
        return 0
    marks = ','.join('?' * len(MANAGED_TERMINAL))
    try:
        # Read-only: the controller replaces the file by rename, so this reads one whole version.
        from urllib.parse import quote  # here: every job's end report loads this module
        conn = sqlite3.connect('file:%s?mode=ro' % quote(path), uri=True, timeout=5)
        try:
            busy = conn.execute('SELECT 1 FROM managed_jobs WHERE status NOT IN (%s) OR cluster_name IS NOT NULL LIMIT 1'
                                % marks, MANAGED_TERMINAL).fetchone()
            last = conn.execute('SELECT MAX(updated_at) FROM managed_jobs').fetchone()[0]
        finally:
            conn.close()
    except sqlite3.Error:
        return None
    if busy:
        return None
    return (last or 0) / 1000.0


def last_activity(conn, cfg, now=None):
    """When the cluster was last busy (None: busy now)."""
    hold = cfg.get('hold_until')
    if hold is not None and (time.time() if now is None else now) < hold:
        return None  # a launch is under way (its job not submitted yet)
    if conn.execute('SELECT 1 FROM jobs WHERE status IN (%s) LIMIT 1' % sql_list(NON_TERMINAL)).fetchone():
        return None
    if cfg['wait_for'] == 'jobs_and_ssh' and interactive_sessions():
        return None
    managed = managed_activity(cfg['managed_jobs_db']) if cfg.get('managed_jobs_db') else 0
    if managed is None:
        return None
    row = conn.execute('SELECT MAX(submitted_at), MAX(ended_at) FROM jobs').fetchone()
    return max([t for t in (row[0], row[1], cfg['set_at'], hold, managed) if t is not None])


def interactive_sessions():
    """sshd processes serving a terminal to someone ("sshd: alice@pts/0")."""
    count = 0
    try:
        names = os.listdir('/proc')
    except OSError:
        return 0
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open('/proc/%s/cmdline' % name, 'rb') as f:
                cmd = f.read(200)
        except OSError:
            continue
        if cmd.startswith(b'sshd: ') and b'@pts/' in cmd:
            count += 1
    return count


def state(conn, now=None):
    """For `status`: the setting and how long until it fires (None while busy)."""
    cfg = db.get_meta(conn, 'autostop')
    if not cfg:
        return None
    now = time.time() if now is None else now
    since = last_activity(conn, cfg, now)
    fired = db.get_meta(conn, 'autostop_fired')
    out = dict((k, cfg.get(k)) for k in ('idle_minutes', 'down', 'wait_for', 'action', 'managed_jobs_db'))
    # While a launch's hold lasts, fires_in is None (busy) and this says until when.
    hold = cfg.get('hold_until')
    out['held_until'] = hold if hold is not None and now < hold else None
    out['idle_seconds'] = None if since is None else round(now - since, 1)
    out['fires_in'] = None if since is None else round(max(0.0, since + cfg['idle_minutes'] * 60 - now), 1)
    out['fired_at'] = fired['at'] if fired and since is not None and fired['at'] >= since else None
    # What the last self-stop did, problems included: the client shows it (a stop that could
    # not happen keeps billing).
    out['last_result'] = db.get_meta(conn, 'autostop_result')
    return out


def check(ctx, now=None):
    """One daemon look: runs the command if idle long enough and not yet run for this period.
    Returns True when autostop is configured (the daemon must then stay up to watch)."""
    conn = ctx.conn()
    cfg = db.get_meta(conn, 'autostop')
    if not cfg:
        return False
    now = time.time() if now is None else now
    since = last_activity(conn, cfg, now)
    if since is None or now - since < cfg['idle_minutes'] * 60:
        return True
    with db.write_txn(conn):
        fired = db.get_meta(conn, 'autostop_fired')
        if fired and fired['at'] >= since:
            return True  # already ran for this idle period
        db.set_meta(conn, 'autostop_fired', {'at': now, 'command': cfg['command'],
                                             'action': cfg.get('action'), 'down': cfg['down']})
    _run_detached(ctx, cfg['command'] or ctx.self_argv('_selfstop'))
    return True


def _run_detached(ctx, argv):
    log = os.path.join(ctx.paths.base, 'autostop.log')
    with open(log, 'a') as f:
        f.write('%s idle: running %r\n' % (time.strftime('%Y-%m-%dT%H:%M:%S'), argv))
    res = spawn.spawn_many([('autostop', argv, driver.filtered_environ(os.environ), log)])
    if not isinstance(res.get('autostop'), tuple):
        with open(log, 'a') as f:
            f.write('could not start it: %s\n' % res.get('autostop'))
