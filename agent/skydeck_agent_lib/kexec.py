"""`_kexec TARGET_JSON [--stdin] -- ARGV...`: run ARGV in a worker pod through the API server's
exec stream, as ssh runs a command on a VM worker: its output on ours, its exit status as ours,
255 when the pod could not be reached or the stream broke (ssh's own failure code, so gang.py
asks the worker about the rank the same way).

Credentials: the head pod's own ServiceAccount token and CA (mounted only in the head pod; its
Role allows exec into this cluster's pods alone). The API address: TARGET's `server` when the
provider gave one (host-network pods reach the address the client uses), else the in-cluster
service from the pod's environment.

A v4 exec stream cannot close stdin, so with --stdin our whole stdin is read first and the
remote side takes exactly that many bytes (`head -c`), which gives the command its end of input.
"""
import json
import os
import socket
import ssl
import sys
from urllib.parse import quote, urlencode, urlsplit

from . import kube_ws

SA_DIR = '/var/run/secrets/kubernetes.io/serviceaccount'
FAILED = 255
CUT_STDIN = 'n=$1; shift; head -c "$n" | "$@"'


def main(rest):
    if len(rest) < 3 or '--' not in rest:
        sys.stderr.write('usage: _kexec TARGET_JSON [--stdin] -- ARGV...\n')
        return 2
    at = rest.index('--')
    target, flags, argv = rest[0], rest[1:at], rest[at + 1:]
    try:
        t = json.loads(target)
        pod = t['pod']
    except (ValueError, KeyError, TypeError):
        sys.stderr.write('skydeck: bad exec target %r\n' % target[:200])
        return 2
    data = None
    if '--stdin' in flags:
        data = sys.stdin.buffer.read()
        argv = ['/bin/sh', '-c', CUT_STDIN, 'sh', str(len(data))] + argv
    try:
        sock, early = connect(t, argv, data is not None)
    except (OSError, ssl.SSLError, ExecRefused) as e:
        sys.stderr.write('skydeck: cannot exec in pod %s: %s\n' % (pod, e))
        return FAILED
    try:
        if data:
            for i in range(0, len(data), 32768):
                sock.sendall(kube_ws.frame(kube_ws.BINARY, bytes([kube_ws.STDIN]) + data[i:i + 32768]))
        code, why = pump(sock, sys.stdout.buffer, sys.stderr.buffer, early)
    except (OSError, ssl.SSLError, kube_ws.FrameError) as e:
        code, why = None, 'the exec stream broke: %s' % e
    finally:
        sock.close()
    if code is None:
        sys.stderr.write('skydeck: pod %s: %s\n' % (pod, why))
        return FAILED
    return code


class ExecRefused(Exception):
    pass


def api_address(t):
    server = t.get('server')
    if server:
        u = urlsplit(server)
        if u.scheme != 'https' or not u.hostname:
            raise ExecRefused('the API server %r is not an https URL' % server)
        return u.hostname, u.port or 443
    host = os.environ.get('KUBERNETES_SERVICE_HOST') or 'kubernetes.default.svc'
    return host, int(os.environ.get('KUBERNETES_SERVICE_PORT') or 443)


def request_path(t, argv, stdin):
    q = [('container', t['container'])] + [('command', a) for a in argv]
    q += [('stdout', '1'), ('stderr', '1')] + ([('stdin', '1')] if stdin else [])
    return '/api/v1/namespaces/%s/pods/%s/exec?%s' % (
        quote(t['namespace'], safe=''), quote(t['pod'], safe=''), urlencode(q))


def connect(t, argv, stdin):
    host, port = api_address(t)
    with open(os.path.join(SA_DIR, 'token')) as f:
        token = f.read().strip()
    ctx = ssl.create_default_context(cafile=os.path.join(SA_DIR, 'ca.crt'))
    raw = socket.create_connection((host, port), timeout=10)
    keepalive(raw)
    sock = ctx.wrap_socket(raw, server_hostname=host)
    key = kube_ws.new_key()
    hostport = ('[%s]' % host if ':' in host else host) + ':%d' % port
    sock.sendall(('GET %s HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n'
                  'Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n'
                  'Sec-WebSocket-Protocol: %s\r\nAuthorization: Bearer %s\r\n\r\n'
                  % (request_path(t, argv, stdin), hostport, key, kube_ws.PROTOCOL, token)).encode('utf-8'))
    head, rest = read_head(sock)
    lines = head.decode('iso-8859-1').split('\r\n')
    status = lines[0].split(' ', 2)
    headers = dict((k.strip().lower(), v.strip()) for k, _, v in (l.partition(':') for l in lines[1:]))
    if len(status) < 2 or status[1] != '101':
        body = _body(sock, rest, headers)
        raise ExecRefused('%s: %s' % (lines[0], _message(body)))
    if headers.get('sec-websocket-accept') != kube_ws.accept_of(key):
        raise ExecRefused('the API server answered the upgrade with a wrong accept key')
    sock.settimeout(None)  # a rank may be silent for hours; TCP keepalive finds a dead peer
    return sock, rest


def keepalive(s):
    s.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
    for name, v in (('TCP_KEEPIDLE', 10), ('TCP_KEEPINTVL', 5), ('TCP_KEEPCNT', 3)):
        if hasattr(socket, name):
            s.setsockopt(socket.IPPROTO_TCP, getattr(socket, name), v)


def read_head(sock):
    buf = b''
    while b'\r\n\r\n' not in buf:
        chunk = sock.recv(4096)
        if not chunk or len(buf) > 65536:
            raise ExecRefused('the API server closed the connection during the upgrade')
        buf += chunk
    head, _, rest = buf.partition(b'\r\n\r\n')
    return head, rest


def _body(sock, rest, headers):
    """The refusal's body, read up to its Content-Length: the server keeps the connection open,
    so reading on after it would wait out the timeout. Without a length, what came with the
    head, else one read. At most 64 KiB and 5 s."""
    try:
        want = min(int(headers.get('content-length', '')), 65536)
    except ValueError:
        want = None
    body = rest
    try:
        sock.settimeout(5)
        if want is None and not body:
            return sock.recv(65536)
        while want is not None and len(body) < want:
            chunk = sock.recv(want - len(body))
            if not chunk:
                break
            body += chunk
    except (OSError, ssl.SSLError):
        pass
    return body


def _message(body):
    """The API server's refusal is a JSON Status (its message names the pod, the RBAC rule)."""
    text = body.decode('utf-8', 'replace')
    try:
        return str(json.loads(text[text.index('{'):text.rindex('}') + 1])['message'])
    except (ValueError, KeyError, TypeError):
        return text.strip()[:300] or 'no reason given'


def pump(sock, out, err, data=b''):
    """Until the stream ends: output to out/err, pings answered. (code, None) with the remote
    exit status, or (None, why) when the stream ended without one."""
    reader, status = kube_ws.Reader(), None
    while True:
        for op, payload in reader.feed(data):
            if op == kube_ws.PING:
                sock.sendall(kube_ws.frame(kube_ws.PONG, payload))
            elif op == kube_ws.CLOSE:
                return _end(status)
            elif op in (kube_ws.BINARY, kube_ws.TEXT) and payload:
                ch, body = payload[0], payload[1:]
                if ch == kube_ws.STDOUT and body:
                    out.write(body)
                    out.flush()
                elif ch == kube_ws.STDERR and body:
                    err.write(body)
                    err.flush()
                elif ch == kube_ws.STATUS and body:
                    status = kube_ws.exit_of(body)
        data = sock.recv(65536)
        if not data:
            return _end(status)


def _end(status):
    if status is None:
        return None, 'the exec stream ended without an exit status (the pod or its node went away)'
    return status
