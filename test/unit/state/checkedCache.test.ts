// The in-memory "checked before" digest (state/checkedImage.ts): the same bytes reopen without
// the integrity check; any changed byte is checked in full, in the same process.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { listClusters, putCluster, SCHEMA_VERSION, StateStore, StateVersionError, thisCreator, type ClusterRecord } from '../../../src/core/state';

const row = (name: string): ClusterRecord => ({
  name, uid: randomUUID(), provider: 'fake', region: null, zone: null, status: 'INIT', resources: null,
  num_nodes: 1, head_address: null, ssh_user: null, ssh_port: null, ssh_key_path: null, handle: null,
  launched_at: 1, updated_at: 1, last_error: null, autostop_minutes: null, autostop_down: 0, flags: null,
  created_by_user: thisCreator().user, created_by_machine: thisCreator().machine, account: null,
});

describe('state: reopening bytes this process checked', () => {
  let file: string;
  beforeEach(async () => {
    file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-checked-')), 'state.db');
    const s = await StateStore.open(file);
    await s.write((db) => putCluster(db, row('a')));
    s.close();
  });
  afterEach(() => fs.rmSync(path.dirname(file), { recursive: true, force: true }));

  it('the same bytes reopen with the same rows', async () => {
    for (let i = 0; i < 2; i++) {
      const s = await StateStore.open(file);
      assert.deepEqual((await s.read((db) => listClusters(db))).map((c) => c.name), ['a']);
      assert.deepEqual(s.notices, []);
      s.close();
    }
  });

  it('a file another Skydeck rewrote to a newer schema is refused, though this process saved the old one', async () => {
    const b = fs.readFileSync(file);
    // SQLite's header keeps user_version (the schema version) at bytes 60..63, big-endian.
    b.writeUInt32BE(SCHEMA_VERSION + 1, 60);
    fs.writeFileSync(file, b);
    await assert.rejects(StateStore.open(file), StateVersionError);
  });

  it('a file with a table dropped by hand is damage, though this process saved it whole', async () => {
    const initSqlJs = (await import('sql.js')).default;
    const SQL = await initSqlJs();
    const db = new SQL.Database(fs.readFileSync(file));
    db.exec('DROP TABLE clusters');
    fs.writeFileSync(file, db.export());
    db.close();
    const s = await StateStore.open(file);
    assert.equal(s.notices[0]?.kind, 'corrupt-moved');
    s.close();
  });
});
