"""serve's requests, one line at a time, read straight from its input descriptor.

Not sys.stdin's buffered reader: that one cannot say whether a whole request is already
waiting without blocking, and serve does work between requests only when none is (stage.py).
"""
import os
import select

CHUNK = 1 << 16


class Lines(object):
    def __init__(self, fd):
        self.fd = fd
        self.buf = bytearray()
        self.pos = 0  # where the next line starts
        self.seen = 0  # no newline in buf[pos:seen]: a long line is not searched again

    def readline(self):
        """The next line with its newline; the rest without one at the end of input; b'' after."""
        while True:
            i = self.buf.find(b'\n', self.seen)
            if i >= 0:
                line = bytes(self.buf[self.pos:i + 1])
                self.pos = self.seen = i + 1
                return line
            if self.pos:
                del self.buf[:self.pos]
                self.pos = 0
            self.seen = len(self.buf)
            try:
                chunk = os.read(self.fd, CHUNK)
            except BlockingIOError:  # a non-blocking descriptor handed down: wait for it
                select.select([self.fd], [], [])
                continue
            if not chunk:
                line = bytes(self.buf)
                self.buf, self.seen = bytearray(), 0
                return line
            self.buf += chunk

    def waiting(self):
        """True when the next request is here already (a whole line read, or bytes to read)."""
        if self.buf.find(b'\n', self.pos) >= 0:
            return True
        try:
            return bool(select.select([self.fd], [], [], 0)[0])
        except (OSError, ValueError):
            return False
