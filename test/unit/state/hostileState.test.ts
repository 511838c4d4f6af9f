// Issues 12.10 and 13.1: a state file from a cloned repository (or a damaged one) is read with
// suspicion: bad shapes are moved aside, bad rows are refused with a message and never used.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import initSqlJs from 'sql.js';
import {
  StateFileError, StateStore, clusterRowProblem, getCluster, listClusters, listRefusedClusters, putCluster, RefusedRowError,
  machineId, notOursReason, type ClusterRecord,
} from '../../../src/core/state';
import { clusterConfigFile, defaultSshConfigPaths, writeClusterSshConfig, sshAlias } from '../../../src/core/access';
import { plantedRow, plantRow } from '../../support/plantRow';

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-hostile-'));

describe('hostile or damaged state files', () => {
  it('issue 12.10: a state.db missing the clusters table is moved aside with a message, not "no such table"', async () => {
    const ws = tmp();
    (await StateStore.openWorkspace(ws)).close();
    const file = path.join(ws, '.skydeck', 'state.db');
    const SQL = await initSqlJs();
    const db = new SQL.Database(fs.readFileSync(file));
    db.run('DROP TABLE clusters');
    fs.writeFileSync(file, db.export());
    db.close();
    const s = await StateStore.openWorkspace(ws);
    try {
      assert.equal(s.notices.length, 1);
      const n = s.notices[0];
      assert.match(n.message, /has no table "clusters"/);
      assert.ok(n.message.includes(file) && n.message.includes(n.movedTo), n.message);
      assert.ok(fs.existsSync(n.movedTo));
      assert.deepEqual(await s.read((d) => listClusters(d)), []);
    } finally {
      s.close();
    }
  });

  it('issue 12.10: a state.db lacking a column its version promises is moved aside too', async () => {
    const ws = tmp();
    (await StateStore.openWorkspace(ws)).close();
    const file = path.join(ws, '.skydeck', 'state.db');
    const SQL = await initSqlJs();
    const db = new SQL.Database(fs.readFileSync(file));
    db.run('DROP TABLE jobs');
    db.run('CREATE TABLE jobs (cluster TEXT)');
    fs.writeFileSync(file, db.export());
    db.close();
    const s = await StateStore.openWorkspace(ws);
    s.close();
    assert.match(s.notices[0]?.message ?? '', /table "jobs" lacks column\(s\) [^"]*\bjob_id\b/);
  });

  it('issue 12.10: a directory in place of state.db is a clear error naming the file and what to do; it is left alone', async () => {
    const ws = tmp();
    const file = path.join(ws, '.skydeck', 'state.db');
    fs.mkdirSync(file, { recursive: true });
    fs.writeFileSync(path.join(file, 'keep.txt'), 'mine');
    await assert.rejects(StateStore.openWorkspace(ws), (e: unknown) => {
      assert.ok(e instanceof StateFileError);
      assert.ok((e as Error).message.includes(file), (e as Error).message);
      assert.match((e as Error).message, /is a directory, not a file Skydeck wrote\. Move it out of the way/);
      assert.doesNotMatch((e as Error).message, /EISDIR/);
      return true;
    });
    assert.equal(fs.readFileSync(path.join(file, 'keep.txt'), 'utf8'), 'mine');
  });

  describe('issue 13.1: every cluster row is checked when read', () => {
    const cases: [string, Record<string, string | number | null>, RegExp][] = [
      ['a wildcard uid', { uid: '*' }, /uid "\*" is not a Skydeck cluster uid/],
      ['a name with a newline and ProxyCommand', { name: 'x\nProxyCommand touch /tmp/pwn' }, /cluster name "x\\nProxyCommand touch \/tmp\/pwn" is not valid/],
      ['a name with a path', { name: '../../etc' }, /cluster name "\.\.\/\.\.\/etc" is not valid/],
      ['an unknown provider', { provider: 'evilcloud' }, /provider "evilcloud" is not one Skydeck knows/],
      ['a port out of range', { ssh_port: 70000 }, /ssh_port 70000 is out of range/],
      ['a fractional node count', { num_nodes: 1.5 }, /num_nodes 1\.5 is out of range/],
      ['a local base outside the derived directory', { handle: JSON.stringify({ hosts: [], base: '/tmp/repo/evil', workdir: '', local: true }) }, /base "\/tmp\/repo\/evil" is not the directory Skydeck uses for evil/],
      ['a local base that climbs out', { handle: JSON.stringify({ hosts: [], base: '/w/.skydeck/local/evil/../../../x/.skydeck/local/evil', workdir: '' }) }, /is not the directory Skydeck uses/],
      ['an ssh row with a base', { provider: 'ssh', region: 'p', handle: JSON.stringify({ hosts: [{ address: '10.0.0.1', port: 22, user: 'u' }], pool: 'p', base: '/tmp/x', workdir: '' }) }, /base is set/],
      ['a host address with spaces', { provider: 'ssh', region: 'p', handle: JSON.stringify({ hosts: [{ address: 'a b', port: 22, user: 'u' }], pool: 'p', workdir: '' }) }, /host address "a b" is not valid/],
      ['handle that is not JSON', { handle: '{nope' }, /handle is not valid JSON/],
      ['an unknown flag', { flags: 'rm -rf' }, /flags "rm -rf" is not a value Skydeck writes/],
      ['a forged machine id', { created_by_machine: 'me' }, /created_by_machine is not a Skydeck machine id/],
      // A multi-node head sends its pod's token to kube.server: only an https URL passes.
      ...['http://10.0.0.1:6443', 'https://x y', 'https://h\'$(id)'].map((server): [string, Record<string, string | number | null>, RegExp] => [`kube.server ${server}`, {
        provider: 'kubernetes', region: 'ctx', head_address: null, num_nodes: 2,
        handle: JSON.stringify({ hosts: [], workdir: '', kube: { context: 'ctx', namespace: 'default', container: 'node', pods: ['p-0', 'p-1'], server } }),
      }, /kube\.server is not an https URL/]),
      // Issue 16: the buckets a row records reach IAM calls at down (GCP unbinds its account from each).
      ...([
        ['a recorded bucket of an unknown store', [{ store: 'ftp', bucket: 'b' }], /placement\.bucketAccess: store "ftp" is not a bucket store/],
        ['a recorded bucket name invalid for its store', [{ store: 'gcs', bucket: '../b/iam' }], /placement\.bucketAccess: bucket "\.\.\/b\/iam" is not a valid gcs bucket name/],
        ['a recorded prefix with a control character', [{ store: 's3', bucket: 'bkt', prefix: 'a\u0001' }], /placement\.bucketAccess: prefix .* is not a plain path/],
        ['a recorded Azure account that is no account name', [{ store: 'azure', bucket: 'cont1', account: 'Evil/../x' }], /placement\.bucketAccess: account "Evil\/\.\.\/x" is not an Azure storage account name/],
        ['recorded buckets that are not a list', { store: 's3', bucket: 'bkt' }, /placement\.bucketAccess is not a list/],
      ] as [string, unknown, RegExp][]).map(([what, bucketAccess, message]): [string, Record<string, string | number | null>, RegExp] => [what, {
        provider: 'aws', region: 'us-east-1', head_address: null,
        handle: JSON.stringify({ hosts: [], workdir: '', instanceIds: [], lastRunAt: 0, runInFlight: false, attempt: 1, placement: { cloud: 'aws', bucketAccess } }),
      }, message]),
    ];
    for (const [what, over, message] of cases) {
      it(`refuses ${what}, with a message, and never hands the row out`, async () => {
        const s = await StateStore.openWorkspace(tmp());
        try {
          const row = await plantRow(s, over);
          assert.match(clusterRowProblem(row) ?? '', message);
          assert.deepEqual(await s.read((db) => listClusters(db)), []);
          const refused = await s.read((db) => listRefusedClusters(db));
          assert.equal(refused.length, 1);
          assert.match(refused[0].problem, message);
          assert.doesNotMatch(refused[0].label, /[\n\r]/, 'the name is escaped for display');
          await assert.rejects(s.read((db) => getCluster(db, String(row.name))), (e: unknown) => e instanceof RefusedRowError && /nothing is done with it/.test((e as Error).message));
        } finally {
          s.close();
        }
      });
    }

    it('accepts the rows Skydeck writes (local, with the derived base)', () => {
      const row = plantedRow({ handle: JSON.stringify({ hosts: [], base: '/home/u/ws/.skydeck/local/evil', workdir: '/home/u/ws/.skydeck/local/evil/sky_workdir', local: true }) });
      assert.equal(clusterRowProblem(row), undefined);
    });

    it('accepts a multi-node kubernetes row with its API server for the head', () => {
      const row = plantedRow({ provider: 'kubernetes', region: 'ctx', head_address: null, num_nodes: 2,
        handle: JSON.stringify({ hosts: [], workdir: '', kube: { context: 'ctx', namespace: 'default', container: 'node', pods: ['p-0', 'p-1'], server: 'https://127.0.0.1:6443' } }) });
      assert.equal(clusterRowProblem(row), undefined);
    });

    it('writers refuse what readers refuse: putCluster with a bad name throws', async () => {
      const s = await StateStore.openWorkspace(tmp());
      try {
        const bad = plantedRow({ name: 'a\nb' }) as unknown as ClusterRecord;
        await assert.rejects(s.write((db) => putCluster(db, bad)), /refusing to record cluster "a\\nb"/);
      } finally {
        s.close();
      }
    });

    it('a row records its creator; one without this machine\'s id is not ours, and says why', () => {
      const home = tmp();
      const id = machineId(home);
      assert.match(id, /^[0-9a-f]{32}$/);
      assert.equal(fs.statSync(path.join(home, '.skydeck', 'machine-id')).mode & 0o777, 0o600);
      assert.equal(machineId(home), id, 'stable');
      assert.equal(notOursReason({ created_by_user: 'me', created_by_machine: id }, home), undefined);
      assert.match(notOursReason({ created_by_user: null, created_by_machine: null }, home) ?? '', /records no creator/);
      assert.match(notOursReason({ created_by_user: 'x', created_by_machine: 'f'.repeat(32) }, home) ?? '', /launched from another machine \(by "x"\)/);
    });
  });

  it('issue 13.6: ssh config writers refuse names that are not valid cluster names', () => {
    const home = tmp();
    const paths = defaultSshConfigPaths(home);
    const evil = 'x\nHost *\n  ProxyCommand touch /tmp/pwned';
    assert.throws(() => sshAlias(evil), /is not valid/);
    assert.throws(() => clusterConfigFile(paths, '../../.bashrc'), /is not valid/);
    const access = { cluster: evil, alias: `skydeck-${evil}`, head: { address: '10.0.0.1', port: 22, user: 'u' }, knownHostsFiles: [], workdir: '' };
    assert.throws(() => writeClusterSshConfig(paths, access, 'ws'), /is not valid/);
    assert.equal(fs.existsSync(paths.dir) ? fs.readdirSync(paths.dir).length : 0, 0, 'nothing was written');
  });

  it('a workspace whose .skydeck is a symbolic link is refused: nothing is written where it points', async () => {
    const ws = tmp();
    const elsewhere = tmp();
    fs.symlinkSync(elsewhere, path.join(ws, '.skydeck'));
    await assert.rejects(StateStore.openWorkspace(ws), (e: Error) => e instanceof StateFileError && /\.skydeck is a symbolic link/.test(e.message));
    assert.deepEqual(fs.readdirSync(elsewhere), []);
  });
});
