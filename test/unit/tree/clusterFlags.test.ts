// Cluster nodes' contextValue and flag state, without VS Code: the menus' regexes depend on
// the token order (cluster:<status>:<local|remote>…), and Stop/Start/Retry Down on the rest.
import assert from 'node:assert/strict';
import type { ClusterRecord } from '../../../src/core/state';
import { clusterContextValue, flagState } from '../../../src/ui/tree/clusterFlags';

const row = (provider: string, status: ClusterRecord['status'], flags: string | null = null) => ({ name: 'c', provider, status, flags });

describe('ui/tree cluster flags and contextValue', () => {
  it('keeps the first tokens the existing menus match', () => {
    assert.equal(clusterContextValue(row('local', 'UP')), 'cluster:up:local');
    assert.equal(clusterContextValue(row('ssh', 'UP')), 'cluster:up:remote');
    assert.match(clusterContextValue(row('aws', 'UP')), /^cluster:up:remote/);
  });

  it('marks cloud clusters stoppable, never local or ssh', () => {
    const stop = /^cluster:up:.*:stoppable\b/;
    assert.match(clusterContextValue(row('aws', 'UP')), stop);
    assert.doesNotMatch(clusterContextValue(row('ssh', 'UP')), stop);
    assert.doesNotMatch(clusterContextValue(row('local', 'UP')), stop);
    assert.match(clusterContextValue(row('gcp', 'STOPPED')), /^cluster:stopped:.*:stoppable\b/);
  });

  it('adds the flag token: Retry Down for unconfirmed teardowns of any cloud', () => {
    assert.equal(clusterContextValue(row('aws', 'UP', 'termination-unconfirmed')), 'cluster:up:remote:stoppable:down-unconfirmed');
    assert.equal(clusterContextValue(row('ssh', 'UP', 'down-unconfirmed')), 'cluster:up:remote:down-unconfirmed');
    assert.equal(clusterContextValue(row('aws', 'UP', 'stop-unconfirmed')), 'cluster:up:remote:stoppable:stop-unconfirmed');
    assert.equal(clusterContextValue(row('aws', 'INIT', 'terminating')), 'cluster:init:remote:stoppable:terminating');
  });

  it('says what an unconfirmed state means, and which need the user', () => {
    assert.equal(flagState(row('aws', 'UP')), undefined);
    assert.equal(flagState(row('aws', 'UP', 'termination-unconfirmed'))?.label, 'teardown unconfirmed');
    assert.equal(flagState(row('aws', 'UP', 'termination-unconfirmed'))?.needsAction, true);
    assert.match(flagState(row('aws', 'UP', 'termination-unconfirmed'))!.hint, /Retry Down/);
    assert.equal(flagState(row('aws', 'UP', 'stopping'))?.needsAction, false);
    assert.equal(flagState(row('aws', 'UP', 'something-new'))?.token, 'flagged');
  });
});
