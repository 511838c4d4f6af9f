"""Autostop / autodown: the daemon decides when the cluster has been idle long enough and then
either runs the command the client configured, or (`action`) stops the cluster itself with
selfstop.py: an OS shutdown of every node, or the GCP / Azure / Kubernetes API through the
node's own identity.

Idle = no job PENDING / SETTING_UP / RUNNING and, with wait_for "jobs_and_ssh" (the default),
no interactive SSH session (an sshd "user@pts/N" process): a user in a terminal is not idle.
The clock restarts at every job submit or end, at every configure, and while a session is
open — so a job that arrives before the deadline cancels the pending stop. The command runs
once per idle period, detached, its output in autostop.log.
"""
import os
import time

from . import db, driver, spawn
from .errors import bad_args
from .states import NON_TERMINAL, sql_list

WAIT_FOR = ('jobs_and_ssh', 'jobs')
ACTIONS = ('shutdown', 'gcp', 'azure', 'kubernetes')
KEYS = ('idle_minutes', 'down', 'command', 'action', 'wait_for')


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
    return {'idle_minutes': minutes, 'down': bool(value.get('down', False)), 'command': command,
            'action': action, 'wait_for': wait_for, 'set_at': time.time()}


def last_activity(conn, cfg):
    """When the cluster was last busy (None: busy now)."""
    if conn.execute('SELECT 1 FROM jobs WHERE status IN (%s) LIMIT 1' % sql_list(NON_TERMINAL)).fetchone():
        return None
    if cfg['wait_for'] == 'jobs_and_ssh' and interactive_sessions():
        return None
    row = conn.execute('SELECT MAX(submitted_at), MAX(ended_at) FROM jobs').fetchone()
    return max([t for t in (row[0], row[1], cfg['set_at']) if t is not None])


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
    since = last_activity(conn, cfg)
    fired = db.get_meta(conn, 'autostop_fired')
    out = dict((k, cfg.get(k)) for k in ('idle_minutes', 'down', 'wait_for', 'action'))
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
    since = last_activity(conn, cfg)
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
