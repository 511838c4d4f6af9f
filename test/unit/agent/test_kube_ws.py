"""Unit tests of the exec client's framing (kube_ws.py) and its stream loop (kexec.pump).

Run by kubeExec.test.ts: python3 -m unittest discover -s test/unit/agent -p 'test_kube_ws.py'.
The test plays the API server on the other end of a socketpair, framing by hand from RFC 6455.
"""
import io
import json
import os
import socket
import struct
import sys
import threading
import time
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', '..', '..', 'agent'))
from skydeck_agent_lib import kexec, kube_ws, nodes  # noqa: E402
from skydeck_agent_lib.errors import AgentError  # noqa: E402


def server_frame(op, payload, fin=True):
    """An unmasked server frame, lengths encoded as RFC 6455 5.2 says."""
    n = len(payload)
    b0 = (0x80 if fin else 0) | op
    if n < 126:
        return struct.pack('!BB', b0, n) + payload
    if n < 65536:
        return struct.pack('!BBH', b0, 126, n) + payload
    return struct.pack('!BBQ', b0, 127, n) + payload


def status(code):
    if code == 0:
        return json.dumps({'status': 'Success', 'metadata': {}}).encode()
    return json.dumps({'status': 'Failure', 'reason': 'NonZeroExitCode', 'message': 'command terminated with non-zero exit code',
                       'details': {'causes': [{'reason': 'ExitCode', 'message': str(code)}]}}).encode()


def unmask(data):
    """A client frame back to (opcode, payload), checking it is masked as a client must."""
    assert data[1] & 0x80, 'client frames are masked'
    n, at = data[1] & 0x7F, 2
    if n == 126:
        n, at = struct.unpack('!H', data[2:4])[0], 4
    elif n == 127:
        n, at = struct.unpack('!Q', data[2:10])[0], 10
    mask = data[at:at + 4]
    body = bytes(b ^ mask[i % 4] for i, b in enumerate(data[at + 4:at + 4 + n]))
    return data[0] & 0x0F, body


class Framing(unittest.TestCase):
    def test_accept_key_is_the_rfc_example(self):
        # RFC 6455 1.3: this key gives this accept value.
        self.assertEqual(kube_ws.accept_of('dGhlIHNhbXBsZSBub25jZQ=='), 's3pPLMBiTxaQ9kYGzzhZRbK+xOo=')

    def test_client_frames_are_masked_at_every_length(self):
        for n in (0, 1, 125, 126, 65535, 65536, 200000):
            payload = os.urandom(n)
            op, body = unmask(kube_ws.frame(kube_ws.BINARY, payload))
            self.assertEqual((op, body), (kube_ws.BINARY, payload), n)

    def test_reader_joins_split_bytes_fragments_and_passes_control_frames_between(self):
        wire = (server_frame(kube_ws.BINARY, b'\x01hel', fin=False) + server_frame(kube_ws.PING, b'p') +
                server_frame(kube_ws.CONT, b'lo') + server_frame(kube_ws.BINARY, b'\x02' + b'e' * 70000))
        r, got = kube_ws.Reader(), []
        for i in range(0, len(wire), 7):  # the socket hands bytes over in odd pieces
            got += r.feed(wire[i:i + 7])
        self.assertEqual(got, [(kube_ws.PING, b'p'), (kube_ws.BINARY, b'\x01hello'), (kube_ws.BINARY, b'\x02' + b'e' * 70000)])

    def test_a_continuation_with_nothing_to_continue_and_a_huge_frame_are_errors(self):
        with self.assertRaises(kube_ws.FrameError):
            kube_ws.Reader().feed(server_frame(kube_ws.CONT, b'x'))
        with self.assertRaises(kube_ws.FrameError):
            kube_ws.Reader().feed(struct.pack('!BBQ', 0x82, 127, 1 << 40))

    def test_exit_of_reads_success_exit_codes_and_refusals(self):
        self.assertEqual(kube_ws.exit_of(status(0)), (0, None))
        self.assertEqual(kube_ws.exit_of(status(137)), (137, None))
        self.assertEqual(kube_ws.exit_of(b'{"status":"Failure","message":"container not found (\\"node\\")"}'),
                         (None, 'container not found ("node")'))
        self.assertEqual(kube_ws.exit_of(b'not json')[0], None)
        self.assertEqual(kube_ws.exit_of(b'[1]')[0], None)


class Pump(unittest.TestCase):
    def run_pump(self, wire, early=b''):
        ours, theirs = socket.socketpair()
        sent = []

        def serve():
            theirs.sendall(wire)
            theirs.shutdown(socket.SHUT_WR)
            data = b''
            while True:
                c = theirs.recv(4096)
                if not c:
                    break
                data += c
            sent.append(data)
        th = threading.Thread(target=serve)
        th.start()
        out, err = io.BytesIO(), io.BytesIO()
        try:
            result = kexec.pump(ours, out, err, early)
        finally:
            ours.close()
            th.join()
            theirs.close()
        return result, out.getvalue(), err.getvalue(), sent[0]

    def test_output_on_its_channels_and_the_exit_code_from_the_status(self):
        wire = (server_frame(kube_ws.BINARY, b'\x01') + server_frame(kube_ws.BINARY, b'\x01out\n') +
                server_frame(kube_ws.BINARY, b'\x02err\n') + server_frame(kube_ws.PING, b'hb') +
                server_frame(kube_ws.BINARY, b'\x03' + status(3)) + server_frame(kube_ws.CLOSE, b''))
        # The first bytes may have come with the upgrade's answer.
        (code, why), out, err, sent = self.run_pump(wire[5:], early=wire[:5])
        self.assertEqual((code, why, out, err), (3, None, b'out\n', b'err\n'))
        self.assertEqual(unmask(sent), (kube_ws.PONG, b'hb'))

    def test_a_stream_that_ends_without_a_status_is_no_exit_code(self):
        (code, why), out, _, _ = self.run_pump(server_frame(kube_ws.BINARY, b'\x01partial'))
        self.assertEqual((code, out), (None, b'partial'))
        self.assertIn('without an exit status', why)

    def test_success(self):
        (code, _), _, _, _ = self.run_pump(server_frame(kube_ws.BINARY, b'\x03' + status(0)))
        self.assertEqual(code, 0)


class Refusal(unittest.TestCase):
    """A refused upgrade's body is read to its Content-Length and no further: the API server
    keeps the connection open, and reading on waited 5 s for nothing on every refusal."""

    def body_of(self, rest, headers, later=b''):
        ours, theirs = socket.socketpair()
        try:
            if later:
                theirs.sendall(later)
            t0 = time.monotonic()
            body = kexec._body(ours, rest, headers)
            return body, time.monotonic() - t0
        finally:
            ours.close()
            theirs.close()

    def test_the_whole_body_at_once_when_it_came_with_the_head(self):
        msg = b'{"kind":"Status","message":"pods \\"x\\" is forbidden"}'
        body, took = self.body_of(msg, {'content-length': str(len(msg))})
        self.assertEqual(body, msg)
        self.assertLess(took, 1)

    def test_the_rest_of_the_body_when_it_comes_after_the_head(self):
        msg = b'{"kind":"Status","message":"forbidden"}'
        body, took = self.body_of(msg[:10], {'content-length': str(len(msg))}, later=msg[10:])
        self.assertEqual(body, msg)
        self.assertLess(took, 1)
        self.assertEqual(kexec._message(body), 'forbidden')

    def test_no_length_takes_what_came_with_the_head(self):
        body, took = self.body_of(b'{"message":"no"}', {})
        self.assertEqual(body, b'{"message":"no"}')
        self.assertLess(took, 1)


class Request(unittest.TestCase):
    def test_path_quotes_every_value_and_keeps_argv_words_apart(self):
        t = {'namespace': 'ns', 'pod': 'p"o d', 'container': 'c&x=1'}
        path = kexec.request_path(t, ['sh', '-c', 'echo "$HOME" & x=1'], True)
        from urllib.parse import parse_qsl, urlsplit
        u = urlsplit(path)
        self.assertEqual(u.path, '/api/v1/namespaces/ns/pods/p%22o%20d/exec')
        q = parse_qsl(u.query)
        self.assertEqual([v for k, v in q if k == 'command'], ['sh', '-c', 'echo "$HOME" & x=1'])
        self.assertEqual(dict(q)['container'], 'c&x=1')
        self.assertEqual(dict(q)['stdin'], '1')
        self.assertNotIn('stdin', dict(parse_qsl(urlsplit(kexec.request_path(t, ['true'], False)).query)))

    def test_only_https_servers(self):
        self.assertEqual(kexec.api_address({'server': 'https://127.0.0.1:6443'}), ('127.0.0.1', 6443))
        with self.assertRaises(kexec.ExecRefused):
            kexec.api_address({'server': 'http://127.0.0.1:6443'})

    def test_bad_target_and_usage_are_exit_2_not_255(self):
        self.assertEqual(kexec.main(['{', '--', 'true']), 2)
        self.assertEqual(kexec.main(['{}']), 2)


class Workers(unittest.TestCase):
    def test_kube_workers_parse_and_ssh_ones_still_do(self):
        w = {'kube': {'namespace': 'default', 'pod': 'skydeck-x-1', 'container': 'node', 'server': 'https://h:1'},
             'python': 'python3', 'agent': '/a/skydeck_agent.py', 'base': '/b'}
        ssh = {'address': '10.0.0.2', 'user': 'u', 'python': 'python3', 'agent': '/a', 'base': '/b'}
        got = nodes.parse_workers([w, ssh])
        self.assertEqual(got[0], w)
        self.assertEqual(got[1]['port'], 22)
        for bad in ({'kube': 'x', 'python': 'p', 'agent': 'a', 'base': 'b'},
                    dict(w, kube=dict(w['kube'], pod='')),
                    dict(w, kube=dict(w['kube'], server='http://h')),
                    dict(w, kube=dict(w['kube'], extra='1')),
                    dict(w, address='x')):
            with self.assertRaises(AgentError):
                nodes.parse_workers([bad])

    def test_worker_argv_runs_the_exec_client_with_the_argv_as_words(self):
        class P(object):
            base = '/b'
        w = {'kube': {'namespace': 'default', 'pod': "it's", 'container': 'node'}, 'python': 'p', 'agent': 'a', 'base': 'b'}
        argv = nodes.worker_argv(P(), w, ['cat', "/x/it's $(id)"], stdin=True)
        at = argv.index('--')
        self.assertEqual(argv[at + 1:], ['cat', "/x/it's $(id)"])
        self.assertEqual(argv[at - 3:at], ['_kexec', json.dumps(w['kube'], sort_keys=True), '--stdin'])
        self.assertEqual(nodes.describe({'workers': [w]}, 1), "worker node 1 (pod it's)")


if __name__ == '__main__':
    unittest.main()
