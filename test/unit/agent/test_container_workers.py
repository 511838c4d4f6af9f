"""Unit tests of a container cluster's workers in the agent (nodes.py): configure's `container`
key is checked, and every command for such a worker is ssh into `<runtime> exec -i <name>`.

Run by containerWorkers.test.ts: python3 -m unittest discover -s test/unit/agent -p 'test_container_workers.py'.
"""
import os
import shlex
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', '..', '..', 'agent'))
from skydeck_agent_lib import nodes  # noqa: E402
from skydeck_agent_lib.errors import AgentError  # noqa: E402

W = {'address': '10.0.0.2', 'port': 22, 'user': 'u', 'python': '/usr/bin/python3',
     'agent': '/root/.skydeck/workers/x/agent/skydeck_agent.py', 'base': '/root/.skydeck/workers/x'}


class Paths(object):
    def __init__(self, base):
        self.base = base


class ContainerWorkers(unittest.TestCase):
    def test_accepted_and_kept(self):
        w = dict(W, container={'runtime': 'podman', 'name': 'skydeck-ab12-cd'})
        self.assertEqual(nodes.parse_workers([w]), [w])

    def test_bad_container_values_are_refused(self):
        bad = [
            'podman', {'runtime': 'podman'}, {'runtime': 'podman', 'name': 'n', 'extra': 1},
            {'runtime': '--privileged', 'name': 'n'}, {'runtime': 'podman', 'name': '-e'},
            {'runtime': 'podman', 'name': 'a b'}, {'runtime': 'podman', 'name': '$(id)'},
            {'runtime': 'podman', 'name': 'n\nx'}, {'runtime': 7, 'name': 'n'},
        ]
        for c in bad:
            with self.assertRaises(AgentError, msg=repr(c)):
                nodes.parse_workers([dict(W, container=c)])

    def test_argv_enters_the_container_through_ssh(self):
        with tempfile.TemporaryDirectory() as d:
            w = dict(W, container={'runtime': 'podman', 'name': 'skydeck-ab'})
            argv = nodes.worker_argv(Paths(d), w, ['sh', '-c', 'echo "$1"; x=$(id)', 'a b'])
            self.assertEqual(argv[0], 'ssh')
            self.assertIn('u@10.0.0.2', argv)
            remote = argv[argv.index('--') + 1]
            # The worker's login shell reads one line: each word quoted, none interpreted.
            self.assertEqual(shlex.split(remote), ['podman', 'exec', '-i', 'skydeck-ab', 'sh', '-c', 'echo "$1"; x=$(id)', 'a b'])

    def test_plain_worker_is_unchanged(self):
        with tempfile.TemporaryDirectory() as d:
            argv = nodes.worker_argv(Paths(d), dict(W), ['true'])
            self.assertEqual(argv[argv.index('--') + 1], 'true')

    def test_describe_names_the_container(self):
        cluster = {'node_ips': ['10.0.0.1', '10.0.0.2'],
                   'workers': [dict(W, container={'runtime': 'docker', 'name': 'skydeck-ab'})]}
        self.assertEqual(nodes.describe(cluster, 1), 'worker node 1 (container skydeck-ab on u@10.0.0.2)')


if __name__ == '__main__':
    unittest.main()


class KubeHead(unittest.TestCase):
    """configure's `kube_head` (the pod an autodown deletes last) is checked like a kube worker."""

    def test_accepted(self):
        h = {'namespace': 'default', 'pod': 'skydeck-ab-0', 'container': 'node', 'server': 'https://127.0.0.1:6443'}
        self.assertEqual(nodes.parse_kube_head(h), h)
        self.assertIsNone(nodes.parse_kube_head(None))

    def test_hostile_values_are_refused(self):
        base = {'namespace': 'default', 'pod': 'p', 'container': 'node'}
        for bad in ('x', [], dict(base, server='http://evil.example'), dict(base, pod=''),
                    dict(base, pod='a\nb'), dict(base, extra='1'), dict(base, namespace=7)):
            with self.assertRaises(AgentError, msg=repr(bad)):
                nodes.parse_kube_head(bad)
