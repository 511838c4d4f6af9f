// The `kubernetes:` section of the Skydeck config file: checked when read (errors name the file
// and key), pod_config fields that would widen what a pod touches refused, allowed_contexts
// applied to the default context, launch and check. No cluster needed: a kubeconfig is a file.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { readKubeFileConfig } from '../../../src/core/clouds/kubernetes/config';
import { kubeOptionsFromEnv } from '../../../src/core/clouds/kubernetes/options';
import { podSpec } from '../../../src/core/clouds/kubernetes/podSpec';
import { KubeApi } from '../../../src/core/clouds/kubernetes/api';
import { KubernetesProvider } from '../../../src/core/clouds/kubernetes';
import { kubeCheckSummary } from '../../../src/core/clouds/kubernetes/checkSummary';
import { checkKubernetes } from '../../../src/core/clouds/kubernetes/check';
import { isProviderError } from '../../../src/core/clouds/provider';

describe('kubernetes: the kubernetes.* config keys', () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-kcfg-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const write = (text: string) => {
    const f = path.join(dir, 'config.yaml');
    fs.writeFileSync(f, text);
    return f;
  };
  const kubeconfig = () => {
    const f = path.join(dir, 'kubeconfig');
    fs.writeFileSync(f, [
      'apiVersion: v1', 'kind: Config',
      'clusters:', '- {name: c, cluster: {server: "https://127.0.0.1:1"}}',
      'users:', '- {name: u, user: {token: t}}',
      'contexts:', '- {name: dev, context: {cluster: c, user: u, namespace: devns}}', '- {name: prod, context: {cluster: c, user: u}}',
      'current-context: prod', '',
    ].join('\n'));
    return f;
  };
  const refused = (text: string, re: RegExp) => assert.throws(() => readKubeFileConfig(write(text)), (e) => isProviderError(e) && e.kind === 'config' && re.test(e.message));

  it('no file, no section: nothing set', () => {
    assert.deepEqual(readKubeFileConfig(path.join(dir, 'missing.yaml')), { file: path.join(dir, 'missing.yaml') });
    assert.equal(readKubeFileConfig(write('jobs: {controller: this-machine}\n')).namespace, undefined);
  });

  it('bad values are errors naming the file and the key', () => {
    const f = path.join(dir, 'config.yaml');
    refused('kubernetes: [1]\n', new RegExp(`^${f}: kubernetes: must be a mapping`));
    refused('kubernetes: {namespace: "Bad_NS"}\n', new RegExp(`^${f}: kubernetes.namespace: "Bad_NS" is not a namespace name`));
    refused('kubernetes: {namespace: "a$(rm -rf /)"}\n', /kubernetes.namespace: .* is not a namespace name/);
    refused('kubernetes: {allowed_contexts: dev}\n', /kubernetes.allowed_contexts: must be a non-empty list/);
    refused('kubernetes: {allowed_contexts: []}\n', /kubernetes.allowed_contexts: must be a non-empty list/);
    refused('kubernetes: {namespce: x}\n', /kubernetes.namespce: unknown key/);
    refused('kubernetes: {autoscaler: aks}\n', /kubernetes.autoscaler: "aks" is not one of generic, karpenter, coreweave, gke/);
    assert.equal(readKubeFileConfig(write('kubernetes: {autoscaler: gke}\n')).autoscaler, 'gke');
    refused('kubernetes: {namespace: [x\n', /not valid YAML/);
  });

  it('pod_config: widening fields are refused by path; hostPID only when opted in', () => {
    refused('kubernetes: {pod_config: {metadata: {namespace: kube-system}}}\n', /kubernetes.pod_config.metadata.namespace: not taken \(use kubernetes.namespace\)/);
    refused('kubernetes: {pod_config: {spec: {hostNetwork: true}}}\n', /kubernetes.pod_config.spec.hostNetwork: not taken/);
    refused('kubernetes: {pod_config: {spec: {volumes: [{name: h, hostPath: {path: /}}]}}}\n', /kubernetes.pod_config.spec.volumes: not taken/);
    refused('kubernetes: {pod_config: {spec: {containers: [{securityContext: {privileged: true}}]}}}\n', /pod_config.spec.containers\[0\].securityContext: not taken/);
    refused('kubernetes: {pod_config: {spec: {containers: [{}, {}]}}}\n', /pod_config.spec.containers: must be a list of one container/);
    refused('kubernetes: {pod_config: {metadata: {labels: {skydeck-cluster-uid: x}}}}\n', /pod_config.metadata.labels.skydeck-cluster-uid: Skydeck sets this key itself/);
    refused('kubernetes: {pod_config: {metadata: {labels: {skydeck-role: head}}}}\n', /labels.skydeck-role: Skydeck sets this key itself/);
    refused('kubernetes: {pod_config: {spec: {serviceAccountName: admin}}}\n', /kubernetes.pod_config.spec.serviceAccountName: not taken/);
    refused('kubernetes: {pod_config: {spec: {hostPID: true}}}\n', /pod_config.spec.hostPID: .*allow_host_namespaces: true/);
    refused('kubernetes: {pod_config: {spec: {containers: [{env: [{name: A, valueFrom: {secretKeyRef: {name: s, key: k}}}]}]}}}\n', /containers\[0\].env: must be a list of \{name, value\}/);
    assert.ok(readKubeFileConfig(write('kubernetes: {allow_host_namespaces: true, pod_config: {spec: {hostPID: true}}}\n')).podConfig);
  });

  it('pod_config is merged into the pod; Skydeck\'s labels, selector and command win', () => {
    const f = write([
      'kubernetes:',
      '  pod_config:',
      '    metadata: {labels: {team: ml}, annotations: {note: hi}}',
      '    spec:',
      '      nodeSelector: {pool: gpu}',
      '      tolerations: [{key: gpu, operator: Exists, effect: NoSchedule}]',
      '      containers: [{env: [{name: HF_HOME, value: /cache}], resources: {limits: {memory: 8Gi}}}]',
    ].join('\n'));
    const o = kubeOptionsFromEnv({}, undefined, f);
    const p = podSpec({ uid: 'U1', clusterName: 'c', workspaceId: 'w', numNodes: 1, placement: { cloud: 'kubernetes', useSpot: false }, tags: { 'skydeck-cluster-uid': 'U1' }, resources: { cpus: '2' } } as never, 0, o);
    assert.equal(p.metadata!.labels!.team, 'ml');
    assert.equal(p.metadata!.labels!['skydeck-cluster-uid'], 'U1');
    assert.equal(p.metadata!.annotations!.note, 'hi');
    assert.deepEqual(p.spec!.nodeSelector, { pool: 'gpu' });
    assert.equal(p.spec!.tolerations![0].key, 'gpu');
    const c = p.spec!.containers[0];
    assert.deepEqual(c.env, [{ name: 'HF_HOME', value: '/cache' }]);
    assert.equal(c.resources!.limits!.memory, '8Gi');
    assert.equal(c.command![0], '/bin/sh');
    assert.equal(p.spec!.restartPolicy, 'Never');
  });

  it('namespace: the file overrides the context\'s; SKYDECK_KUBERNETES_NAMESPACE overrides the file', () => {
    const f = write('kubernetes: {namespace: team-a}\n');
    const kc = kubeconfig();
    const fromFile = kubeOptionsFromEnv({}, undefined, f);
    assert.equal(new KubeApi({ kubeconfig: kc, namespace: fromFile.namespace }).target('dev').namespace, 'team-a');
    assert.equal(new KubeApi({ kubeconfig: kc }).target('dev').namespace, 'devns');
    assert.equal(kubeOptionsFromEnv({ SKYDECK_KUBERNETES_NAMESPACE: 'kit' }, undefined, f).namespace, 'kit');
  });

  it('allowed_contexts: the default is an allowed context; launch elsewhere is refused before any call; check skips the others', async () => {
    const f = write('kubernetes: {allowed_contexts: [dev]}\n');
    const o = { ...kubeOptionsFromEnv({}, undefined, f), kubeconfig: kubeconfig() };
    const p = new KubernetesProvider(o);
    assert.equal(p.api.target().context, 'dev', 'the current context (prod) is not allowed: the first allowed one is used');
    await assert.rejects(
      p.runInstances({ uid: 'U2', clusterName: 'c', workspaceId: 'w', numNodes: 1, region: 'prod', placement: { cloud: 'kubernetes', useSpot: false }, tags: {} } as never),
      (e) => isProviderError(e) && e.kind === 'config' && /context "prod" is not in kubernetes.allowed_contexts \(dev\)/.test(e.message) && e.hint!.includes(f),
    );
    const rows = await checkKubernetes(new KubeApi({ kubeconfig: o.kubeconfig, allowedContexts: ['dev'] }));
    const prod = rows.find((r) => r.context === 'prod')!;
    assert.deepEqual(prod.problems, ['not in kubernetes.allowed_contexts: not checked']);
    assert.match(rows.find((r) => r.context === 'dev')!.problems[0], /^unreachable/, 'the allowed one was asked');
    const none = kubeCheckSummary([prod]);
    assert.equal(none.detail, 'prod (namespace default): not in kubernetes.allowed_contexts: not checked');
    assert.match(none.fix!, /no context of the kubeconfig is in kubernetes.allowed_contexts/);
  });
});
