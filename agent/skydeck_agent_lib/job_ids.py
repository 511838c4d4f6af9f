"""Job ids as clients send them (cancel, queue)."""
from .errors import bad_args


def parse_job_ids(ids):
    if not isinstance(ids, list) or not ids:
        raise bad_args('job_ids must be a non-empty list of integers')
    out = []
    for i in ids:
        if isinstance(i, str) and i.isdigit():
            i = int(i)
        if isinstance(i, bool) or not isinstance(i, int) or i < 1:
            raise bad_args('bad job id %r' % (i,))
        out.append(i)
    return out
