import assert from 'node:assert/strict';
import { kubeCheckSummary } from '../../../src/core/clouds/kubernetes/checkSummary';

describe('kubernetes check line', () => {
  it('usable when any context may do everything; the others are still listed', () => {
    const c = kubeCheckSummary([
      { context: 'dev', namespace: 'ml', ok: true, problems: [] },
      { context: 'prod', namespace: 'default', ok: false, problems: ['create pods/exec in namespace default'] },
    ]);
    assert.deepEqual(c, { cloud: 'kubernetes', ok: true, detail: 'dev (namespace ml): ok; prod (namespace default): may not create pods/exec in namespace default', regions: ['dev'] });
  });

  it('RBAC gaps get the Role to ask for; only unreachable contexts get the reachability fix; none at all is said', () => {
    const rbac = kubeCheckSummary([{ context: 'a', namespace: 'team', ok: false, problems: ['delete pods in namespace team'] }]);
    assert.equal(rbac.ok, false);
    assert.match(rbac.fix!, /Role in namespace team/);
    const down = kubeCheckSummary([{ context: 'a', namespace: 'default', ok: false, problems: ['unreachable: connect ECONNREFUSED'] }]);
    assert.equal(down.detail, 'a (namespace default): unreachable: connect ECONNREFUSED');
    assert.match(down.fix!, /start the cluster/);
    assert.equal(kubeCheckSummary([]).detail, 'the kubeconfig has no contexts');
  });
});
