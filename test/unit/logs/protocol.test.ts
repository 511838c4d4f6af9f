import assert from 'node:assert/strict';
import { isPageMessage, keyId, panelTitle, parsePanelState } from '../../../src/ui/logs/protocol';

describe('logs protocol', () => {
  it('accepts well-formed page messages only', () => {
    for (const m of [{ type: 'ready' }, { type: 'ready', lines: 10_029 }, { type: 'save' }, { type: 'retry' }, { type: 'ack', session: 1, offset: 10 }, { type: 'pong', id: 3 }, { type: 'openRank', rank: 2 }]) {
      assert.equal(isPageMessage(m), true, JSON.stringify(m));
    }
    for (const m of [null, 1, 'ready', {}, { type: 'ack', session: 1 }, { type: 'ack', session: 1, offset: -1 }, { type: 'ack', session: '1', offset: 2 }, { type: 'pong' }, { type: 'rm -rf' }, { type: 'ready', lines: 0 }, { type: 'ready', lines: 'all' }, { type: 'openRank', rank: -1 }, { type: 'openRank', rank: '1' }]) {
      assert.equal(isPageMessage(m), false, JSON.stringify(m));
    }
  });

  it('parses saved panel state and rejects foreign state', () => {
    assert.deepEqual(parsePanelState({ v: 1, cluster: 'c', jobId: 4, name: 'train', offset: 99 }), { v: 1, cluster: 'c', jobId: 4, name: 'train', offset: 99 });
    assert.deepEqual(parsePanelState({ v: 1, cluster: 'c', jobId: 4 }), { v: 1, cluster: 'c', jobId: 4, name: undefined, offset: 0 });
    for (const s of [undefined, null, {}, { v: 2, cluster: 'c', jobId: 1 }, { v: 1, cluster: '', jobId: 1 }, { v: 1, cluster: 'c', jobId: 1.5 }]) {
      assert.equal(parsePanelState(s), undefined, JSON.stringify(s));
    }
  });

  it('titles panels `cluster #id name` and keys them by cluster and id', () => {
    assert.equal(panelTitle({ cluster: 'gpu-box', jobId: 7, name: 'train' }), 'gpu-box #7 train');
    assert.equal(panelTitle({ cluster: 'gpu-box', jobId: 7 }), 'gpu-box #7');
    assert.equal(keyId({ cluster: 'a', jobId: 1, name: 'x' }), keyId({ cluster: 'a', jobId: 1 }));
    assert.notEqual(keyId({ cluster: 'a', jobId: 11 }), keyId({ cluster: 'a1', jobId: 1 }));
    // Each rank of a multi-node job has its own panel; rank 0 is the job's own log.
    assert.equal(panelTitle({ cluster: 'gang', jobId: 3, name: 'ddp', rank: 2 }), 'gang #3 ddp · rank 2');
    assert.notEqual(keyId({ cluster: 'a', jobId: 1, rank: 2 }), keyId({ cluster: 'a', jobId: 1 }));
    assert.equal(keyId({ cluster: 'a', jobId: 1, rank: 0 }), keyId({ cluster: 'a', jobId: 1 }));
    assert.equal(parsePanelState({ v: 1, cluster: 'c', jobId: 4, rank: 2 })?.rank, 2);
  });

  it('a managed job\'s panel: its own title and key (never a cluster\'s job of the same number), kept across a reload', () => {
    assert.equal(panelTitle({ cluster: 'managed', jobId: 3, name: 'train', managed: true }), 'managed job 3 train');
    assert.notEqual(keyId({ cluster: 'managed', jobId: 3, managed: true }), keyId({ cluster: 'managed', jobId: 3 }));
    assert.equal(keyId({ cluster: 'x', jobId: 3, managed: true }), keyId({ cluster: 'managed', jobId: 3, managed: true }));
    assert.equal(parsePanelState({ v: 1, cluster: 'managed', jobId: 3, managed: true })?.managed, true);
    assert.equal(parsePanelState({ v: 1, cluster: 'managed', jobId: 3, managed: 'yes' })?.managed, undefined);
  });
});
