"""Job states in their total order; a status may only move to a later one."""

ORDER = ('INIT', 'PENDING', 'SETTING_UP', 'RUNNING', 'FAILED_DRIVER',
         'SUCCEEDED', 'FAILED', 'FAILED_SETUP', 'CANCELLED')
RANK = dict((s, i) for i, s in enumerate(ORDER))
TERMINAL = frozenset(('FAILED_DRIVER', 'SUCCEEDED', 'FAILED', 'FAILED_SETUP', 'CANCELLED'))
NON_TERMINAL = tuple(s for s in ORDER if s not in TERMINAL)
# States that hold resources on the node.
ACTIVE = ('SETTING_UP', 'RUNNING')


def below(status):
    """States a job may be in for `status` to be written (the forward-only rule)."""
    return ORDER[:RANK[status]]


def sql_list(states):
    # Only ever built from the constants above, never from input.
    return ','.join("'%s'" % s for s in states)
