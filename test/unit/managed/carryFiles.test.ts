// A managed job's local files carried to the controller (src/core/managed/carryFiles.ts): which
// paths are copied, how the tasks are rewritten to name the copies, what a controller removes.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseTaskText } from '../../../src/core/task';
import { LocalManagedClient, ManagedStore } from '../../../src/core/managed';
import { carriedLines, dropJobUploads, ORPHAN_UPLOAD_MS, planCarry, sweepUploads, uploadDirOf, uploadsRoot } from '../../../src/core/managed/carryFiles';

const ROOT = '/ctl/home/.skydeck/managed/uploads';
const one = (text: string, envs: Record<string, string> = {}) => {
  const p = parseTaskText(text, 't', { env: envs });
  assert.ok(p.ok, JSON.stringify(p.diagnostics));
  return p.tasks[0];
};

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

  it('hostile names: quotes, $(), newlines and YAML syntax in a path reach the task exactly; the copy\'s name is plain', () => {
    const dir = `/w/it's "$(touch x)"\n: [a] #b`;
    const text = `workdir: ${JSON.stringify(dir)}\nfile_mounts:\n  /m: ${JSON.stringify(`${dir}/f`)}\nrun: ls\n`;
    const plan = planCarry([text], {}, '/', ROOT);
    assert.deepEqual(plan.uploads.map((u) => u.local), [dir, `${dir}/f`]);
    for (const u of plan.uploads) assert.match(path.basename(u.remote), /^[0-9]+-[A-Za-z0-9._-]+$/);
    const t = one(plan.tasks[0]);
    assert.equal(t.workdir, plan.uploads[0].remote);
  });

  it('an env given at launch fills a reference before the path is resolved', () => {
    const plan = planCarry(['envs: {D: null}\nworkdir: ./$D\nrun: ls\n'], { D: 'sub' }, '/base', ROOT);
    assert.deepEqual(plan.uploads.map((u) => u.local), ['/base/sub']);
  });

  it('only a well-formed token under the root names an upload directory (no way out of it)', () => {
    const tok = 'a'.repeat(32);
    assert.equal(uploadDirOf([`workdir: ${ROOT}/${tok}/1-p\n`], ROOT), `${ROOT}/${tok}`);
    for (const bad of [`${ROOT}/../../../etc`, `${ROOT}/${'A'.repeat(32)}`, `${ROOT}/${'a'.repeat(31)}`, `/other${ROOT}x/${tok}`, `${ROOT}x/${tok}`]) {
      assert.equal(uploadDirOf([`workdir: ${bad}\n`], ROOT), undefined, bad);
    }
  });

  it('the controller removes a job\'s copies; a sweep keeps those of active jobs and young orphans', () => {
    const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-carry-'));
    try {
      const root = uploadsRoot(ws);
      const dirs = ['1', '2', '3', '4'].map((c) => `${root}/${c.repeat(32)}`);
      for (const d of dirs) fs.mkdirSync(path.join(d, '1-p'), { recursive: true });
      fs.mkdirSync(path.join(root, 'not-a-token'));
      const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-carry-out-'));
      fs.symlinkSync(outside, `${root}/${'5'.repeat(32)}`);
      const old = (Date.now() - ORPHAN_UPLOAD_MS - 60_000) / 1000;
      fs.utimesSync(dirs[3], old, old);
      fs.lutimesSync(`${root}/${'5'.repeat(32)}`, old, old);
      const task = (d: string) => [`workdir: ${d}/1-p\nrun: ls\n`];
      const removed = sweepUploads([{ tasks: task(dirs[0]), active: true }, { tasks: task(dirs[1]), active: false }], ws, Date.now());
      assert.deepEqual(removed.sort(), [dirs[1], dirs[3], `${root}/${'5'.repeat(32)}`].sort());
      assert.ok(fs.existsSync(dirs[0]) && fs.existsSync(dirs[2]) && fs.existsSync(path.join(root, 'not-a-token')));
      assert.ok(fs.existsSync(outside), 'a planted link is removed, never what it points at');
      dropJobUploads(task(dirs[0]), ws);
      assert.equal(fs.existsSync(dirs[0]), false);
      dropJobUploads([`workdir: /elsewhere/${'2'.repeat(32)}\n`], ws); // names no upload here: nothing happens
      fs.rmSync(outside, { recursive: true, force: true });
    } finally {
      fs.rmSync(ws, { recursive: true, force: true });
    }
  });

  it('a submit to a controller on this machine copies the files into its home and records the rewritten task; a missing path records nothing', async () => {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-carry-home-'));
    const proj = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-carry-proj-'));
    const client = await LocalManagedClient.open(ManagedStore.fileIn(home), () => ({ where: 'test', started: false, detail: '' }), Date.now, home);
    try {
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
      assert.deepEqual(carriedLines(['workdir: .\nrun: ls\n'], proj), [`workdir ${proj} → ~/sky_workdir`]);
      await assert.rejects(client.submit({ tasks: ['workdir: ./gone\nrun: ls\n'], base: proj }), /workdir .*gone does not exist on this machine.*nothing was submitted/);
      assert.equal((await client.list()).jobs.length, 1);
      assert.equal(fs.readdirSync(uploadsRoot(home)).length, 1, 'the failed submit left no copy');
    } finally {
      await client.close();
      for (const d of [home, proj]) fs.rmSync(d, { recursive: true, force: true });
    }
  });
});
