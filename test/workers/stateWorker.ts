// A child process that commits to a state file; driven by stateStore.test.ts.
//   node stateWorker.js stream FILE   — commit forever; print "committed N" after each save
//   node stateWorker.js count FILE K  — increment a shared counter K times
import { StateStore } from '../../src/core/state';

const KEEP = 40;

async function main(): Promise<void> {
  const [mode, file, k] = process.argv.slice(2);
  const store = await StateStore.open(file);
  if (mode === 'stream') {
    for (;;) {
      const n = await store.write((db) => {
        const cur = Number(db.exec("SELECT value FROM meta WHERE key='n'")[0]?.values[0][0] ?? 0) + 1;
        db.run("INSERT OR REPLACE INTO meta (key, value) VALUES ('n', ?)", [String(cur)]);
        // A couple of KB per row so a save spans many pages and takes real time.
        db.run("INSERT INTO jobs (cluster_uid, cluster, job_id, name, status) VALUES ('c-uid', 'c', ?, ?, 'RUNNING')", [cur, `job-${cur}-`.repeat(200)]);
        db.run("DELETE FROM jobs WHERE job_id <= ?", [cur - KEEP]);
        return cur;
      });
      process.stdout.write(`committed ${n}\n`);
    }
  }
  if (mode === 'count') {
    for (let i = 0; i < Number(k); i++) {
      await store.write((db) => {
        const cur = Number(db.exec("SELECT value FROM meta WHERE key='count'")[0]?.values[0][0] ?? 0);
        db.run("INSERT OR REPLACE INTO meta (key, value) VALUES ('count', ?)", [String(cur + 1)]);
      });
    }
    store.close();
  }
}

if (require.main === module) main().catch((e) => {
  process.stderr.write(String(e?.stack ?? e) + '\n');
  process.exit(1);
});
