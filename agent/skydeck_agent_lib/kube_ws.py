"""WebSocket framing (RFC 6455) and the Kubernetes exec stream's channels, standard library only.

The exec API speaks `v4.channel.k8s.io`: every binary message starts with one channel byte
(0 stdin, 1 stdout, 2 stderr, 3 the final status as a JSON metav1.Status). A client masks what
it sends (RFC 6455 5.3); a server's frames are unmasked. Kept apart from the socket so the
framing is tested on bytes alone (test/unit/agent/test_kube_ws.py).
"""
import base64
import hashlib
import json
import os
import struct

GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11'  # RFC 6455 1.3
PROTOCOL = 'v4.channel.k8s.io'
CONT, TEXT, BINARY, CLOSE, PING, PONG = 0, 1, 2, 8, 9, 10
STDIN, STDOUT, STDERR, STATUS = 0, 1, 2, 3
MAX_MESSAGE = 64 << 20  # a status or an output chunk is far smaller; more is a broken peer


class FrameError(Exception):
    pass


def new_key():
    return base64.b64encode(os.urandom(16)).decode('ascii')


def accept_of(key):
    return base64.b64encode(hashlib.sha1((key + GUID).encode('ascii')).digest()).decode('ascii')


def frame(opcode, payload, mask=None):
    """One final, masked client frame (mask: 4 bytes; random when None)."""
    mask = os.urandom(4) if mask is None else mask
    n = len(payload)
    if n < 126:
        head = struct.pack('!BB', 0x80 | opcode, 0x80 | n)
    elif n < 1 << 16:
        head = struct.pack('!BBH', 0x80 | opcode, 0x80 | 126, n)
    else:
        head = struct.pack('!BBQ', 0x80 | opcode, 0x80 | 127, n)
    return head + mask + _xor(payload, mask)


def _xor(data, mask):
    if not data:
        return b''
    whole = mask * (len(data) // 4 + 1)
    return (int.from_bytes(data, 'big') ^ int.from_bytes(whole[:len(data)], 'big')).to_bytes(len(data), 'big')


class Reader(object):
    """Bytes in (feed), whole messages out: (opcode, payload), continuations joined."""

    def __init__(self):
        self.buf = b''
        self.partial = None  # (opcode, [chunks]) of a fragmented message

    def feed(self, data):
        self.buf += data
        out = []
        while True:
            f = self._one()
            if f is None:
                return out
            fin, op, payload = f
            if op >= CLOSE:  # control frames may come between fragments (RFC 6455 5.4)
                out.append((op, payload))
            elif op == CONT:
                if self.partial is None:
                    raise FrameError('a continuation frame with no message to continue')
                self.partial[1].append(payload)
                if fin:
                    out.append((self.partial[0], b''.join(self.partial[1])))
                    self.partial = None
            elif fin:
                out.append((op, payload))
            else:
                self.partial = (op, [payload])

    def _one(self):
        b = self.buf
        if len(b) < 2:
            return None
        fin, op = b[0] & 0x80, b[0] & 0x0F
        masked, n, at = b[1] & 0x80, b[1] & 0x7F, 2
        if n == 126:
            if len(b) < 4:
                return None
            n, at = struct.unpack('!H', b[2:4])[0], 4
        elif n == 127:
            if len(b) < 10:
                return None
            n, at = struct.unpack('!Q', b[2:10])[0], 10
        if n > MAX_MESSAGE:
            raise FrameError('a %d-byte frame' % n)
        mask = b[at:at + 4] if masked else None
        at += 4 if masked else 0
        if len(b) < at + n:
            return None
        payload = b[at:at + n]
        self.buf = b[at + n:]
        return bool(fin), op, (_xor(payload, mask) if mask else payload)


def exit_of(status_bytes):
    """(code, message) from a channel-3 status: 0 for Success, the ExitCode cause's number for
    a command that failed, None (with the server's message) for anything else."""
    try:
        s = json.loads(status_bytes.decode('utf-8', 'replace'))
    except ValueError:
        return None, 'an unreadable exec status: %r' % status_bytes[:200]
    if not isinstance(s, dict):
        return None, 'an unreadable exec status: %r' % status_bytes[:200]
    if s.get('status') == 'Success':
        return 0, None
    for c in ((s.get('details') or {}).get('causes') or []):
        if isinstance(c, dict) and c.get('reason') == 'ExitCode' and str(c.get('message', '')).isdigit():
            return int(c['message']), None
    return None, str(s.get('message') or s.get('reason') or 'exec failed')
