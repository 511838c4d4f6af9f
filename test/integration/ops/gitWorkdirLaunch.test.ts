// `workdir: {url, ref}` through launch and exec on the local cloud, from a private repo served by
// git http-backend on 127.0.0.1: the job runs in the clone, exec brings it to a new commit, and
// GIT_TOKEN (a task secret) is in no progress line, state file or .git/config.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { down, exec, launch } from '../../../src/core/ops';
import { localBaseDir } from '../../../src/core/ops/context';
import { gitIn, startGitHttpServer, type GitHttpServer } from '../../support/gitHttpServer';
import { testOps, TestOps, writeTask } from './helpers';

describe('launch with a git workdir (local cloud)', function () {
  this.timeout(90_000);
  let ops: TestOps;
  let server: GitHttpServer;
  const TOKEN = 'glpat-launch-token-7f3a9c';

  beforeEach(async () => {
    ops = await testOps();
  });
  afterEach(async () => {
    await down(ops, 'gitloc', { graceSeconds: 1, purge: true }).catch(() => undefined);
    await ops.dispose();
    await server?.close();
  });

  it('runs in the clone at the ref; exec updates it; the token stays out of files and output', async () => {
    const ws = ops.workspaceRoot;
    const root = fs.mkdtempSync(path.join(ws, 'srv-'));
    gitIn(root, 'init', '-q', '--bare', 'repo.git');
    const work = path.join(root, 'work');
    gitIn(root, 'clone', '-q', path.join(root, 'repo.git'), work);
    const commit = (text: string): void => {
      fs.writeFileSync(path.join(work, 'version.txt'), text);
      gitIn(work, 'add', '-A');
      gitIn(work, 'commit', '-q', '-m', text);
      gitIn(work, 'push', '-q', 'origin', 'main');
    };
    commit('one\n');
    server = await startGitHttpServer(root, { token: TOKEN });
    const yaml = [
      'resources: {cloud: local}', `workdir: {url: ${server.url}/repo.git, ref: main}`, 'secrets: {GIT_TOKEN: null}',
      'run: cat version.txt',
    ].join('\n');
    let out = '';
    const r = await launch(ops, { taskFile: writeTask(ws, 'git.yaml', yaml), cluster: 'gitloc', envs: { GIT_TOKEN: TOKEN }, onOutput: (d) => (out += d) });
    assert.equal(r.final?.status, 'SUCCEEDED', out);
    assert.match(out, /^one\n/);
    commit('two\n');
    out = '';
    const e = await exec(ops, { cluster: 'gitloc', taskFile: writeTask(ws, 'git2.yaml', yaml), envs: { GIT_TOKEN: TOKEN }, onOutput: (d) => (out += d) });
    assert.equal(e.final?.status, 'SUCCEEDED', out);
    assert.match(out, /^two\n/);
    assert.ok(ops.progressLines.some((l) => /Cloning workdir .*repo\.git at main/.test(l)), ops.progressLines.join('\n'));
    const text = [...ops.progressLines, ...ops.warnings].join('\n');
    assert.doesNotMatch(text, new RegExp(TOKEN));
    const base = localBaseDir(ws, 'gitloc');
    assert.doesNotMatch(fs.readFileSync(path.join(base, 'sky_workdir', '.git', 'config'), 'utf8'), new RegExp(TOKEN));
    const walk = (d: string): string[] => fs.readdirSync(d, { withFileTypes: true })
      .flatMap((x) => (x.isDirectory() ? walk(path.join(d, x.name)) : x.isFile() ? [path.join(d, x.name)] : []));
    assert.deepEqual(walk(path.join(ws, '.skydeck')).filter((f) => fs.readFileSync(f).includes(TOKEN)), []);
  });
});
