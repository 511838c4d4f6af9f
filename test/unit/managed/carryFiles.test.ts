// A managed job's local files carried to the controller (src/core/managed/carryFiles.ts): which
// paths are copied, how the tasks are rewritten to name the copies, what a controller removes.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseTaskText } from '../../../src/core/task';
import { LocalManagedClient, ManagedStore } from '../../../src/core/managed';
import { carriedLines, planCarry, uploadsRoot } from '../../../src/core/managed/carryFiles';
import { dropJobUploads, ORPHAN_UPLOAD_MS, sweepUploads } from '../../../src/core/managed/carrySweep';
import { sendCarry } from '../../../src/core/managed/carrySend';
import { LocalTransport, type Transport } from '../../../src/core/transport';
import { uploadFilesOf } from '../../../src/core/ops/bucketStores';

const ROOT = '/ctl/home/.skydeck/managed/uploads';
const one = (text: string, envs: Record<string, string> = {}) => {
  const p = parseTaskText(text, 't', { env: envs });
  assert.ok(p.ok, JSON.stringify(p.diagnostics));
  return p.tasks[0];
};


/** A local controller's client over a fresh home, and a project folder to submit from. */
async function withLocalClient(fn: (client: LocalManagedClient, home: string, proj: string) => Promise<void>): Promise<void> {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-carry-home-'));
  const proj = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-carry-proj-'));
  const client = await LocalManagedClient.open(ManagedStore.fileIn(home), () => ({ where: 'test', started: false, detail: '' }), Date.now, home);
  try {
    await fn(client, home, proj);
  } finally {
    await client.close();
    for (const d of [home, proj]) fs.rmSync(d, { recursive: true, force: true });
  }
}

describe('managed jobs: local files carried to the controller', () => {
  it('workdir, copy mounts (with $-references) and a named bucket\'s local sources name the copies; the rest is kept as written', () => {
    const text = [
      '# a comment that stays',
      'envs: {DST: /data, SRC: ./inputs}',
      'workdir: .',
      'file_mounts:',
      '  $DST: $SRC',
      '  ~/cfg.yaml: ~/configs/c.yaml',
      '  /abs: /srv/shared',
      '  /remote: s3://bucket/prefix',
      '  /named: {name: my-bucket, store: s3, source: ./up, mode: COPY}',
      '  /files: {name: my-files, store: s3, source: [a.txt, ./b/c.txt]}',
      'run: ls',
      '',
    ].join('\n');
    const plan = planCarry([text], {}, '/home/me/proj', ROOT);
    assert.ok(plan.dir && plan.dir.startsWith(`${ROOT}/`) && /^[0-9a-f]{32}$/.test(path.basename(plan.dir)));
    const locals = plan.uploads.map((u) => [u.local, u.workdir]);
    assert.deepEqual(locals, [
      ['/home/me/proj', true], ['/home/me/proj/inputs', false], [path.join(os.homedir(), 'configs/c.yaml'), false],
      ['/srv/shared', false], ['/home/me/proj/up', false], ['/home/me/proj/a.txt', false], ['/home/me/proj/b/c.txt', false],
    ]);
    for (const u of plan.uploads) assert.ok(u.remote.startsWith(`${plan.dir}/`), u.remote);
    const t = one(plan.tasks[0]);
    const remote = (local: string) => plan.uploads.find((u) => u.local === local)!.remote;
    assert.equal(t.workdir, remote('/home/me/proj'));
    assert.deepEqual(t.fileMounts['/data'], { kind: 'copy', source: remote('/home/me/proj/inputs') });
    assert.deepEqual(t.fileMounts['~/cfg.yaml'], { kind: 'copy', source: remote(path.join(os.homedir(), 'configs/c.yaml')) });
    assert.deepEqual(t.fileMounts['/abs'], { kind: 'copy', source: remote('/srv/shared') });
    assert.equal(t.fileMounts['/remote'].kind === 'bucket' && t.fileMounts['/remote'].mount.kind, 'url');
    const named = t.fileMounts['/named'];
    assert.ok(named.kind === 'bucket' && named.mount.kind === 'named' && named.mount.localSource === remote('/home/me/proj/up'));
    const files = t.fileMounts['/files'];
    assert.ok(files.kind === 'bucket' && files.mount.kind === 'named');
    assert.deepEqual(files.mount.kind === 'named' && files.mount.localFiles, [remote('/home/me/proj/a.txt'), remote('/home/me/proj/b/c.txt')]);
    assert.match(plan.tasks[0], /^# a comment that stays\n/);
    assert.equal(t.run, 'ls');
  });

  it('a task with no local path is recorded byte for byte; a git workdir stays a git workdir', () => {
    const texts = ['run: echo hi   # as written\n', 'workdir: {url: "https://example.invalid/r.git", ref: main}\nrun: ls\n'];
    const plan = planCarry(texts, {}, '/x', ROOT);
    assert.deepEqual(plan, { tasks: texts, uploads: [] });
  });

  it('one local folder named by every task of a pipeline is copied once', () => {
    const plan = planCarry(['workdir: .\nrun: a\n', 'workdir: .\nrun: b\n', 'workdir: ./other\nrun: c\n'], {}, '/p', ROOT);
    assert.deepEqual(plan.uploads.map((u) => u.local), ['/p', '/p/other']);
    assert.equal(one(plan.tasks[0]).workdir, one(plan.tasks[1]).workdir);
  });

  it('hostile names: quotes, $(), newlines and YAML syntax in a path reach the task exactly; copies are numbered', () => {
    const dir = `/w/it's "$(touch x)"\n: [a] #b`;
    const text = `workdir: ${JSON.stringify(dir)}\nfile_mounts:\n  /m: ${JSON.stringify(`${dir}/f`)}\nrun: ls\n`;
    const plan = planCarry([text], {}, '/', ROOT);
    assert.deepEqual(plan.uploads.map((u) => u.local), [dir, `${dir}/f`]);
    for (const u of plan.uploads) assert.match(path.basename(u.remote), /^[0-9]+$/, 'copies are numbered: a name may hold a secret');
    const t = one(plan.tasks[0]);
    assert.equal(t.workdir, plan.uploads[0].remote);
  });

  it('an env given at launch fills a reference before the path is resolved', () => {
    const plan = planCarry(['envs: {D: null}\nworkdir: ./$D\nrun: ls\n'], { D: 'sub' }, '/base', ROOT);
    assert.deepEqual(plan.uploads.map((u) => u.local), ['/base/sub']);
  });

  it('the controller removes a job\'s copies by its recorded token; a sweep keeps those of active jobs and young orphans', () => {
    const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-carry-'));
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-carry-out-'));
    try {
      const root = uploadsRoot(ws);
      const tok = ['1', '2', '3', '4', '6'].map((c) => c.repeat(32));
      const dirs = tok.map((t) => `${root}/${t}`);
      for (const d of dirs) fs.mkdirSync(path.join(d, '1'), { recursive: true });
      fs.mkdirSync(path.join(root, 'not-a-token'));
      fs.symlinkSync(outside, `${root}/${'5'.repeat(32)}`);
      const old = (Date.now() - ORPHAN_UPLOAD_MS - 60_000) / 1000;
      for (const d of [dirs[3], dirs[4], path.join(root, 'not-a-token')]) fs.utimesSync(d, old, old);
      fs.lutimesSync(`${root}/${'5'.repeat(32)}`, old, old);
      // An old orphan is kept while the store has rows it cannot read (one may name it).
      assert.deepEqual(sweepUploads([{ uploads: tok[1], active: false }], ws, Date.now(), true), [dirs[1]]);
      const removed = sweepUploads([{ uploads: tok[0], active: true }, { uploads: tok[1], active: false }, { uploads: tok[4], active: true }, { uploads: null, active: true }], ws, Date.now());
      assert.deepEqual(removed.sort(), [dirs[3], `${root}/${'5'.repeat(32)}`].sort());
      assert.ok([dirs[0], dirs[2], dirs[4], path.join(root, 'not-a-token')].every((d) => fs.existsSync(d)), 'active, young and foreign names stay');
      assert.ok(fs.existsSync(outside), 'a planted link is removed, never what it points at');
      dropJobUploads(tok[0], ws);
      assert.equal(fs.existsSync(dirs[0]), false);
      for (const bad of ['../../etc', 'A'.repeat(32), '', null, undefined]) dropJobUploads(bad as string, ws);
      assert.ok(fs.existsSync(dirs[2]) && fs.existsSync(root));
    } finally {
      for (const d of [ws, outside]) fs.rmSync(d, { recursive: true, force: true });
    }
  });

  it('a long send keeps its directory fresh for the sweep', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-carry-fresh-'));
    const src = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-carry-src-'));
    try {
      fs.writeFileSync(path.join(src, 'f'), 'x');
      const local = new LocalTransport();
      const seen: string[][] = [];
      // Every command of the send takes 300 ms: the refresh (every 50 ms here) runs meanwhile.
      const slow: Transport = Object.assign(Object.create(local) as Transport, {
        exec: async (argv: string[], o?: object) => { seen.push(argv); if (argv[0] !== 'touch') await new Promise((r) => setTimeout(r, 300)); return local.exec(argv, o); },
        execShell: async (sc: string, o?: object) => { await new Promise((r) => setTimeout(r, 300)); return local.execShell(sc, o); },
      });
      await sendCarry(slow, 'python3', { tasks: [], dir, uploads: [{ local: path.join(src, 'f'), remote: `${dir}/1`, workdir: false }] }, () => undefined, 50);
      assert.ok(seen.some((a) => a[0] === 'touch' && a.at(-1) === dir), JSON.stringify(seen));
      assert.equal(fs.readFileSync(`${dir}/1`, 'utf8'), 'x');
    } finally {
      for (const d of [dir, src]) fs.rmSync(d, { recursive: true, force: true });
    }
  });

  it('a rewrite changes nothing but the paths: YAML 1.1 numbers, merge keys, aliases', () => {
    const cases = [
      'envs:\n  V: 010\n  W: 1e3\n  X: 1.0e+3\nworkdir: .\nrun: echo $V\n',
      'workdir: .\nfile_mounts:\n  <<: {/data: ./data}\nrun: ls\n',
      'file_mounts_mapping: &fm {/data: ./data}\nworkdir: .\nfile_mounts: *fm\nrun: ls\n',
      'file_mounts:\n  /data: &s ./data\nenvs:\n  SRC: *s\nrun: ls\n',
    ];
    for (const text of cases) {
      const plan = planCarry([text], {}, '/p', ROOT);
      const before = one(text);
      const after = one(plan.tasks[0]);
      assert.deepEqual(after.envs, before.envs, text);
      for (const [dst, m] of Object.entries(after.fileMounts)) assert.ok(m.kind === 'copy' && m.source.startsWith(`${plan.dir}/`), `${text}: ${dst} ${JSON.stringify(m)}`);
      assert.deepEqual(Object.keys(after.fileMounts), Object.keys(before.fileMounts));
      assert.ok(typeof after.workdir !== 'string' || after.workdir.startsWith(`${plan.dir}/`));
      assert.deepEqual(plan.uploads.map((u) => u.local).sort(), [...(before.workdir ? ['/p'] : []), ...(Object.keys(before.fileMounts).length ? ['/p/data'] : [])].sort(), text);
    }
  });

  it('what the user is told is what is copied (a workdir given at launch, a bucket\'s source); a secret in a path stays out of the recorded task', () => {
    const text = 'envs: {WD: null}\nworkdir: $WD\nfile_mounts:\n  /named: {name: my-bucket, store: s3, source: ./up}\nrun: ls\n';
    const envs = { WD: '/data/proj' };
    const plan = planCarry([text], envs, '/p', ROOT);
    assert.deepEqual(carriedLines([text], envs, '/p'), ['workdir /data/proj → ~/sky_workdir', '/p/up']);
    assert.deepEqual(plan.uploads.map((u) => u.local), ['/data/proj', '/p/up']);
    const secret = planCarry(['secrets: {KEY_ID: null}\nfile_mounts:\n  /cfg.json: ~/keys/$KEY_ID.json\nrun: ls\n'], { KEY_ID: 'AKIAREALSECRET' }, '/p', ROOT);
    assert.ok(!secret.tasks[0].includes('AKIAREALSECRET'), secret.tasks[0]);
  });

  it('a submit to a controller on this machine copies the files into its home and records the rewritten task; a missing path records nothing', async () => {
    await withLocalClient(async (client, home, proj) => {
      fs.writeFileSync(path.join(proj, 'a.txt'), 'A');
      fs.mkdirSync(path.join(proj, 'node_modules'));
      fs.writeFileSync(path.join(proj, 'node_modules', 'big'), 'x');
      fs.writeFileSync(path.join(proj, '.gitignore'), 'node_modules/\n');
      fs.writeFileSync(path.join(proj, 'one.txt'), 'one');
      const { id } = await client.submit({ tasks: ['workdir: .\nfile_mounts:\n  /f.txt: ./one.txt\nrun: ls\n'], base: proj });
      const job = (await client.job(id))!;
      const t = one(job.tasks[0]);
      const wd = t.workdir as string;
      assert.ok(wd.startsWith(`${uploadsRoot(home)}/`), wd);
      assert.equal(fs.readFileSync(path.join(wd, 'a.txt'), 'utf8'), 'A');
      assert.equal(fs.existsSync(path.join(wd, 'node_modules')), false, 'the workdir goes as a launch sends it');
      const f = t.fileMounts['/f.txt'];
      assert.ok(f.kind === 'copy' && fs.readFileSync(f.source, 'utf8') === 'one');
      assert.deepEqual(carriedLines(['workdir: .\nrun: ls\n'], {}, proj), [`workdir ${proj} → ~/sky_workdir`]);
      await assert.rejects(client.submit({ tasks: ['workdir: ./gone\nrun: ls\n'], base: proj }), /workdir .*gone does not exist on this machine.*nothing was submitted/);
      assert.equal((await client.list()).jobs.length, 1);
      assert.equal(fs.readdirSync(uploadsRoot(home)).length, 1, 'the failed submit left no copy');
    });
  });

  it('a named bucket\'s list source keeps each file\'s name in the bucket', async () => {
    await withLocalClient(async (client, home, proj) => {
      fs.writeFileSync(path.join(proj, 'a.txt'), 'A');
      fs.mkdirSync(path.join(proj, 'b'));
      fs.writeFileSync(path.join(proj, 'b', 'c.txt'), 'C');
      const text = 'file_mounts:\n  /files: {name: my-files, store: s3, source: [a.txt, b/c.txt]}\nrun: cat /files/a.txt\n';
      const { id } = await client.submit({ tasks: [text], base: proj });
      const job = (await client.job(id))!;
      assert.match(job.uploads ?? '', /^[0-9a-f]{32}$/);
      const keys = (t: string, base: string) => {
        const m = one(t).fileMounts['/files'];
        assert.ok(m.kind === 'bucket' && m.mount.kind === 'named');
        return [...uploadFilesOf('/files', m.mount, base).values()];
      };
      assert.deepEqual(keys(job.tasks[0], home), keys(text, proj));
    });
  });
});
