// The Clusters view's "Leaked instances" part, without VS Code: when the node shows, what is
// under it (this workspace's instances, other workspaces apart, sweep errors shown), removal
// after a confirmed termination, and the text of each instance node.
import assert from 'node:assert/strict';
import type { LeakedIdentity, LeakedInstance } from '../../../src/core/provision';
import { ClustersModel } from '../../../src/ui/tree/clustersModel';
import { LeaksModel, formatAge, identityTooltip, leakDescription, leakLabel, leakTooltip, type LeakSweep } from '../../../src/ui/tree/leaksModel';

function leak(id: string, opts: Partial<LeakedInstance> = {}): LeakedInstance {
  return {
    cloud: 'aws', uid: `uid-${id}`, cluster: 'hello', workspace: 'ws-this', ageMs: 2 * 3_600_000 + 5 * 60_000,
    instance: { id, status: 'running', region: 'us-east-1', zone: 'us-east-1a', launchedAt: 0, tags: {}, instanceType: 'm5.large', costPerHour: 0.096 },
    costSoFar: 0.2,
    ...opts,
  };
}

function sweep(over: Partial<LeakSweep> = {}): LeakSweep {
  return { thisWorkspace: [], otherWorkspaces: [], errors: [], swept: [], workspaceId: 'ws-this', ...over };
}

describe('ui/tree leaked instances model', () => {
  it('shows nothing before a sweep or after one that found nothing', () => {
    const m = new LeaksModel(() => undefined);
    assert.equal(m.visible, false);
    assert.deepEqual(m.entries(), []);
    m.set(sweep());
    assert.equal(m.visible, false);
    assert.equal(m.count, 0);
  });

  it('lists this workspace first, other workspaces in their own section', () => {
    const m = new LeaksModel(() => undefined);
    m.set(sweep({ thisWorkspace: [leak('i-1'), leak('i-2')], otherWorkspaces: [leak('i-9', { workspace: 'ws-other-123456789' })] }));
    assert.equal(m.visible, true);
    assert.equal(m.count, 3);
    assert.deepEqual(m.entries().map((e) => e.kind), ['leak', 'leak', 'other-workspaces']);
    const other = m.entries()[2];
    assert.equal(other.kind === 'other-workspaces' && other.leaks.length, 1);
    assert.deepEqual(m.otherEntries().map((e) => e.kind === 'leak' && [e.leak.instance.id, e.otherWorkspace]), [['i-9', true]]);
    assert.match(m.summary, /^3 · 1 other workspace$/);
  });

  it('shows a cloud whose listing failed, even with no instances found', () => {
    const m = new LeaksModel(() => undefined);
    m.set(sweep({ errors: [{ cloud: 'gcp', kind: 'auth', message: 'auth: no credentials' }] }));
    assert.equal(m.visible, true);
    assert.deepEqual(m.entries(), [{ kind: 'leak-error', cloud: 'gcp', label: 'gcp', message: 'auth: no credentials' }]);
    assert.match(m.summary, /unknown: gcp/);
  });

  it('issue 12.4: each region or account that could not be listed is its own error node, named', () => {
    const m = new LeaksModel(() => undefined);
    m.set(sweep({ errors: [
      { cloud: 'aws', account: '123456789012', region: 'eu-west-3', kind: 'transient', message: 'DescribeInstances: throttled' },
      { cloud: 'aws', account: '222233334444', kind: 'auth', message: 'unknown — credentials point at aws account 123456789012' },
    ] }));
    assert.deepEqual(m.entries().map((e) => e.kind === 'leak-error' && e.label), ['aws eu-west-3 (account 123456789012)', 'aws account 222233334444']);
    assert.equal(m.summary, '0 · unknown: aws eu-west-3 (account 123456789012), aws account 222233334444');
  });

  it('removes an instance once terminated, from either list, and notifies', () => {
    let changes = 0;
    const m = new LeaksModel(() => changes++);
    m.set(sweep({ thisWorkspace: [leak('i-1')], otherWorkspaces: [leak('i-9', { workspace: 'ws-2' })] }));
    assert.equal(m.remove(leak('i-1')), true);
    assert.equal(m.remove(leak('i-9')), true);
    assert.equal(m.remove(leak('i-9')), false, 'already gone: no change');
    assert.equal(m.remove({ cloud: 'gcp', instance: leak('i-1').instance }), false, 'same id on another cloud is another instance');
    assert.equal(changes, 3);
    assert.equal(m.visible, false, 'nothing left: the node goes away');
  });

  it('keeps its own copy of the sweep', () => {
    const s = sweep({ thisWorkspace: [leak('i-1')] });
    const m = new LeaksModel(() => undefined);
    m.set(s);
    m.remove(leak('i-1'));
    assert.equal(s.thisWorkspace.length, 1);
  });

  it('ClustersModel tells its listeners when the leaks change', () => {
    const model = new ClustersModel({ listClusters: async () => [], queue: async () => [] });
    let n = 0;
    model.onDidChange(() => n++);
    model.leaks.set(sweep({ thisWorkspace: [leak('i-1')] }));
    model.leaks.clear();
    assert.equal(n, 2);
  });

  it('describes an instance: cloud and id, cluster, age, cost hint, workspace when not ours', () => {
    const l = leak('i-0abc', { workspace: 'ws-other-123456789' });
    assert.equal(leakLabel(l), 'aws i-0abc');
    assert.equal(leakDescription(l, false), 'cluster hello · 2h 5m · ~$0.20 so far');
    assert.equal(leakDescription(l, true), 'cluster hello · 2h 5m · ~$0.20 so far · workspace ws-other…');
    assert.equal(leakDescription(leak('i-1', { costSoFar: undefined }), false), 'cluster hello · 2h 5m');
    const tip = leakTooltip(l);
    assert.match(tip, /uid uid-i-0abc/);
    assert.match(tip, /us-east-1 \/ us-east-1a/);
    assert.match(tip, /~\$0\.10\/h/);
    assert.equal(formatAge(30_000), '30s');
    assert.equal(formatAge(3 * 86_400_000 + 3_600_000), '3d 1h');
  });

  it('stray identities (AWS bucket roles) alone show the group, listed after the instances, and go once deleted', () => {
    const role: LeakedIdentity = { cloud: 'aws', account: '123456789012', kind: 'IAM role', name: 'skydeck-u1', uid: 'u1', cluster: 'old', workspace: 'ws-x' };
    let changes = 0;
    const m = new LeaksModel(() => changes++);
    m.set(sweep({ strayIdentities: [role] }));
    assert.equal(m.visible, true, 'an identity alone shows the group');
    assert.equal(m.summary, '0 · 1 identity');
    m.set(sweep({ thisWorkspace: [leak('i-1')], strayIdentities: [role], errors: [{ cloud: 'gcp', kind: 'auth', message: 'no' }] }));
    assert.deepEqual(m.entries().map((e) => e.kind), ['leak', 'identity', 'leak-error']);
    assert.match(identityTooltip(role), /^aws IAM role skydeck-u1 \(account 123456789012\)\ncluster: old \(uid u1\), which no cluster row owns/);
    assert.equal(m.removeIdentity({ cloud: 'aws', name: 'skydeck-other' }), false);
    const before = changes;
    assert.equal(m.removeIdentity(role), true);
    assert.equal(changes, before + 1);
    assert.deepEqual(m.identities(), []);
    assert.deepEqual(m.entries().map((e) => e.kind), ['leak', 'leak-error']);
  });
});
