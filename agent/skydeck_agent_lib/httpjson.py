"""JSON over HTTP with the standard library, for the self-stop's cloud calls. Endpoints can be
moved for tests (hooks.py, never the environment); a metadata server is never reached through
a proxy."""
import json
import ssl
import time
import urllib.error
import urllib.request

from . import hooks

TIMEOUT = 20


class HttpError(Exception):
    def __init__(self, what, status, body):
        Exception.__init__(self, '%s: HTTP %s %s' % (what, status, _short(body)))
        self.status = status


def endpoint(var, default):
    return hooks.get(var, default)


def _short(body):
    """The API's own error message when it sent one, else the start of the body."""
    try:
        err = json.loads(body).get('error')
        if isinstance(err, dict):
            code = err.get('code')  # Azure: a name worth showing; Google: the HTTP status again
            return ('%s: %s' % (code, err.get('message')) if isinstance(code, str) else err.get('message')) or body[:300]
        if err:
            return str(err)
    except (ValueError, AttributeError):
        pass
    return body[:300]


def _opener(url, direct):
    handlers = []
    if direct:
        handlers.append(urllib.request.ProxyHandler({}))
    if url.startswith('https:'):
        ctx = ssl.create_default_context(cafile=hooks.get('SKYDECK_SELFSTOP_CA'))
        handlers.append(urllib.request.HTTPSHandler(context=ctx))
    return urllib.request.build_opener(*handlers)


def request(method, url, what, headers=None, body=None, direct=False, tries=3):
    """(status, parsed JSON or text). 5xx, 429 and connection errors are retried with backoff;
    other HTTP errors raise HttpError with the API's message."""
    data = None if body is None else json.dumps(body).encode('utf-8')
    hdrs = dict(headers or {})
    if data is not None:
        hdrs['Content-Type'] = 'application/json'
    for attempt in range(tries):
        req = urllib.request.Request(url, data=data, headers=hdrs, method=method)
        try:
            with _opener(url, direct).open(req, timeout=TIMEOUT) as r:
                text = r.read().decode('utf-8', 'replace')
                return r.status, _parse(text)
        except urllib.error.HTTPError as e:
            text = e.read().decode('utf-8', 'replace')
            if (e.code >= 500 or e.code == 429) and attempt + 1 < tries:
                time.sleep(2 ** attempt)
                continue
            raise HttpError(what, e.code, text)
        except (urllib.error.URLError, OSError) as e:
            if attempt + 1 < tries:
                time.sleep(2 ** attempt)
                continue
            raise HttpError(what, 'unreachable', str(getattr(e, 'reason', e)))


def _parse(text):
    try:
        return json.loads(text) if text.strip() else None
    except ValueError:
        return text
