"""JSON encoding of responses; lets a command hand over JSON text SQLite already built."""
import json


class Raw(bytes):
    """A value that is already JSON text, UTF-8 encoded (e.g. a row array built by SQLite).

    Written to the stream as is: a 10,000-row queue answer is not decoded, re-encoded or
    copied into a fresh megabyte-sized string on every request.
    """


def encode(obj):
    """Compact JSON of obj as a list of byte strings to write in order. Raw values (at any
    depth of nested dicts) are spliced in verbatim; everything else is ASCII-only JSON
    (non-ASCII characters and lone surrogates become \\u escapes)."""
    raws = []

    def swap(d):
        out = {}
        for k, v in d.items():
            if isinstance(v, Raw):
                out[k] = '\x00raw%d\x00' % len(raws)
                raws.append(v)
            elif isinstance(v, dict):
                out[k] = swap(v)
            else:
                out[k] = v
        return out

    text = json.dumps(swap(obj) if isinstance(obj, dict) else obj, separators=(',', ':'))
    pieces = []
    for i, raw in enumerate(raws):
        head, text = text.split(json.dumps('\x00raw%d\x00' % i), 1)
        pieces.append(head.encode('ascii'))
        pieces.append(raw)
    pieces.append(text.encode('ascii'))
    return pieces


def dumps(obj):
    return b''.join(encode(obj)).decode('utf-8')


def loads(text):
    """json.loads that refuses NaN/Infinity, which are not JSON."""
    def no_constants(name):
        raise ValueError('%s is not valid JSON' % name)
    return json.loads(text, parse_constant=no_constants)
