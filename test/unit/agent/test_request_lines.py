"""Unit tests of serve's request reader (agent/skydeck_agent_lib/request_lines.py) on a real pipe.

Run by serve.test.ts: python3 -m unittest discover -s test/unit/agent -p 'test_request_lines.py'.
"""
import os
import sys
import threading
import unittest

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', '..')
sys.path.insert(0, os.path.join(ROOT, 'agent'))
from skydeck_agent_lib.request_lines import Lines  # noqa: E402


class RequestLines(unittest.TestCase):
    def setUp(self):
        self.r, self.w = os.pipe()
        self.lines = Lines(self.r)

    def tearDown(self):
        for fd in (self.r, self.w):
            try:
                os.close(fd)
            except OSError:
                pass

    def test_lines_in_one_write_each_whole_and_the_rest_waiting(self):
        os.write(self.w, b'{"a":1}\n{"b":2}\n{"c"')
        self.assertEqual(self.lines.readline(), b'{"a":1}\n')
        self.assertTrue(self.lines.waiting(), 'the next line is read already')
        self.assertEqual(self.lines.readline(), b'{"b":2}\n')
        self.assertFalse(self.lines.waiting(), 'half a line, nothing more in the pipe')
        os.write(self.w, b':3}\n')
        self.assertTrue(self.lines.waiting(), 'bytes in the pipe')
        self.assertEqual(self.lines.readline(), b'{"c":3}\n')

    def test_a_long_line_across_many_reads_and_a_last_one_without_newline(self):
        big = b'x' * (5 * 65536 + 123)
        t = threading.Thread(target=lambda: (os.write(self.w, big + b'\nend'), os.close(self.w)))
        t.start()
        self.assertEqual(self.lines.readline(), big + b'\n')
        self.assertEqual(self.lines.readline(), b'end')
        self.assertEqual(self.lines.readline(), b'')
        t.join()

    def test_a_non_blocking_descriptor_is_waited_for(self):
        os.set_blocking(self.r, False)
        t = threading.Timer(0.05, lambda: os.write(self.w, b'late\n'))
        t.start()
        self.assertEqual(self.lines.readline(), b'late\n')
        t.join()

    def test_end_of_input(self):
        os.close(self.w)
        self.assertEqual(self.lines.readline(), b'')
        self.assertTrue(self.lines.waiting(), 'the end is there to read: serve then leaves')


if __name__ == '__main__':
    unittest.main()
