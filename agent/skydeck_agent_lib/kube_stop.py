"""Autodown on Kubernetes: deletes this cluster's pods through the API server, as the head pod's
own ServiceAccount (its Role allows get and delete on exactly these pods, made only for a launch
with --down). Workers first; the head last, as its delete ends this process. The pods' owner
references take the ServiceAccount, Role and binding with the head."""
import http.client
import json
import os
import ssl
from urllib.parse import quote

from . import kexec

TIMEOUT = 20


class DeleteRefused(Exception):
    pass


def delete_cluster(cluster, say):
    """Returns the pods deleted (or already gone), head last. Raises DeleteRefused when the API
    server refuses one: the rest are left running, never reported gone."""
    head = cluster.get('kube_head')
    if not head:
        raise DeleteRefused('the agent was never told which pod it runs in (kube_head): nothing deleted')
    targets = [w['kube'] for w in cluster.get('workers') or [] if isinstance(w, dict) and w.get('kube')] + [head]
    done = []
    for t in targets:
        status = _delete(t)
        say('delete pod %s/%s: %s' % (t['namespace'], t['pod'], 'already gone' if status == 404 else 'accepted'))
        done.append(t['pod'])
    return done


def _delete(t):
    host, port = kexec.api_address(t)
    with open(os.path.join(kexec.SA_DIR, 'token')) as f:
        token = f.read().strip()
    ctx = ssl.create_default_context(cafile=os.path.join(kexec.SA_DIR, 'ca.crt'))
    conn = http.client.HTTPSConnection(host, port, timeout=TIMEOUT, context=ctx)
    path = '/api/v1/namespaces/%s/pods/%s' % (quote(t['namespace'], safe=''), quote(t['pod'], safe=''))
    try:
        conn.request('DELETE', path, headers={'Authorization': 'Bearer %s' % token, 'Accept': 'application/json'})
        r = conn.getresponse()
        body = r.read()
    except (OSError, ssl.SSLError, http.client.HTTPException) as e:
        raise DeleteRefused('delete pod %s: the API server did not answer: %s' % (t['pod'], e))
    finally:
        conn.close()
    if r.status in (200, 202, 404):
        return r.status
    raise DeleteRefused('delete pod %s: HTTP %s %s' % (t['pod'], r.status, _message(body)))


def _message(body):
    try:
        return str(json.loads(body.decode('utf-8', 'replace'))['message'])[:300]
    except (ValueError, KeyError, TypeError):
        return body.decode('utf-8', 'replace').strip()[:300]
