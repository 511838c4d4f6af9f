// `workdir: {url, ref}` cloned on a real sshd test host from a real git server (git http-backend
// on 127.0.0.1): branch, tag and commit; an update on re-launch; a bad ref; a private repo whose
// token reaches the server but no file, log or message.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Transport } from '../../../src/core/transport';
import { GitWorkdirError, syncGitWorkdir } from '../../../src/core/sync/gitWorkdir';
import { setup, type Env } from '../transport/helpers';
import { gitIn, startGitHttpServer, type GitHttpServer } from '../../support/gitHttpServer';

const git = gitIn;

describe('git workdir on a test host', function () {
  this.timeout(120_000);
  let env: Env;
  let t: Transport;
  let pub: GitHttpServer;
  let priv: GitHttpServer;
  let root: string;
  let work: string;
  const TOKEN = 'ghp_s3cretTOKENvalue1234567890';
  const commits: Record<string, string> = {};

  const host = async (cmd: string): Promise<string> => {
    const r = await env.hosts[0].exec(cmd);
    assert.equal(r.code, 0, `${cmd}: ${r.stderr}`);
    return r.stdout.trim();
  };
  const commit = (name: string, text: string): string => {
    fs.writeFileSync(path.join(work, 'version.txt'), text);
    git(work, 'add', '-A');
    git(work, 'commit', '-q', '-m', name);
    git(work, 'push', '-q', 'origin', 'main', '--tags');
    return (commits[name] = git(work, 'rev-parse', 'HEAD'));
  };

  before(async () => {
    env = await setup(1);
    t = env.transport(env.hosts[0]);
    root = fs.mkdtempSync(path.join(env.tmp, 'git-'));
    git(root, 'init', '-q', '--bare', 'repo.git');
    work = path.join(root, 'work');
    git(root, 'clone', '-q', path.join(root, 'repo.git'), work);
    commit('first', 'v1\n');
    git(work, 'tag', '-a', '-m', 'release', 'v1');
    git(work, 'push', '-q', 'origin', 'v1');
    commit('second', 'v2\n');
    pub = await startGitHttpServer(root);
    priv = await startGitHttpServer(root, { token: TOKEN });
  });
  after(async () => {
    await pub?.close();
    await priv?.close();
    await env?.teardown();
  });

  it('clones a branch, a tag and a commit id', async () => {
    const url = `${pub.url}/repo.git`;
    const b = await syncGitWorkdir(t, '~/wd-branch', { url, ref: 'main' });
    assert.equal(b.commit, commits.second);
    assert.equal(await host('cat ~/wd-branch/version.txt'), 'v2');
    const tag = await syncGitWorkdir(t, '~/wd-tag', { url, ref: 'v1' });
    assert.equal(tag.commit, commits.first);
    assert.equal(await host('cat ~/wd-tag/version.txt'), 'v1');
    const sha = await syncGitWorkdir(t, '~/wd-sha', { url, ref: commits.first });
    assert.equal(sha.commit, commits.first);
    const short = await syncGitWorkdir(t, '~/wd-short', { url, ref: commits.first.slice(0, 10) });
    assert.equal(short.commit, commits.first);
    // A second branch sorting before main must not be taken for the default.
    git(work, 'push', '-q', 'origin', `${commits.first}:refs/heads/aaa-other`);
    const dflt = await syncGitWorkdir(t, '~/wd-default', { url });
    assert.equal(dflt.commit, commits.second);
  });

  it('a re-launch after a new commit updates the workdir and drops local edits and untracked files', async () => {
    const url = `${pub.url}/repo.git`;
    await syncGitWorkdir(t, '~/wd-update', { url, ref: 'main' });
    await host('cd ~/wd-update && echo edited > version.txt && echo junk > untracked.txt');
    const third = commit('third', 'v3\n');
    const r = await syncGitWorkdir(t, '~/wd-update', { url, ref: 'main' });
    assert.equal(r.commit, third);
    assert.equal(await host('cat ~/wd-update/version.txt'), 'v3');
    assert.equal(await host('[ -e ~/wd-update/untracked.txt ] && echo there || echo gone'), 'gone');
    // Back to an older ref in the same place.
    assert.equal((await syncGitWorkdir(t, '~/wd-update', { url, ref: 'v1' })).commit, commits.first);
    assert.equal(await host('cat ~/wd-update/version.txt'), 'v1');
  });

  it('a ref the repository lacks is a clear error', async () => {
    const e = await syncGitWorkdir(t, '~/wd-bad', { url: `${pub.url}/repo.git`, ref: 'no-such-branch' }).then(() => null, (x) => x);
    assert.ok(e instanceof GitWorkdirError, String(e));
    assert.match(e.message, /ref no-such-branch is not a branch, tag or commit of the repository/);
  });

  it('a private repo: GIT_TOKEN reaches the server, and no file, URL or message on the node holds it', async () => {
    const url = `${priv.url}/repo.git`;
    const denied = await syncGitWorkdir(t, '~/wd-priv', { url, ref: 'main' }, {}, { localEnv: {} }).then(() => null, (x) => x);
    assert.ok(denied instanceof GitWorkdirError, String(denied));
    assert.match(denied.message, /set GIT_TOKEN/);
    priv.authSeen.length = 0;
    const r = await syncGitWorkdir(t, '~/wd-priv', { url, ref: 'main' }, { GIT_TOKEN: TOKEN }, { localEnv: {} });
    assert.equal(r.commit, git(work, 'rev-parse', 'HEAD'));
    assert.ok(priv.authSeen.some((a) => Buffer.from(a.replace(/^Basic /, ''), 'base64').toString().endsWith(`:${TOKEN}`)), 'the token never reached the server');
    assert.equal(await host('git -C ~/wd-priv remote get-url origin'), url);
    assert.doesNotMatch(await host('cat ~/wd-priv/.git/config'), new RegExp(TOKEN));
    // /tmp is this machine's (it holds the test's own compiled source): only the node user's files count.
    assert.equal(await host(`find ~ /tmp -user "$(id -u)" -type f -exec grep -l ${TOKEN} {} + 2>/dev/null; true`), '');
    // A fetch that fails with the token in play names no token.
    const wrong = await syncGitWorkdir(t, '~/wd-priv2', { url, ref: 'main' }, { GIT_TOKEN: 'wrong-token-xyz' }, { localEnv: {} }).then(() => null, (x) => x);
    assert.ok(wrong instanceof GitWorkdirError);
    assert.doesNotMatch(wrong.message, /wrong-token-xyz/);
  });

  it('git missing on the node is said so', async () => {
    const noGit: Transport = Object.create(t, {
      execShell: { value: (s: string, o: object) => t.execShell(`PATH=/nonexistent\n${s}`, o) },
    });
    const e = await syncGitWorkdir(noGit, '~/wd-nogit', { url: `${pub.url}/repo.git` }).then(() => null, (x) => x);
    assert.ok(e instanceof GitWorkdirError, String(e));
    assert.match(e.message, /git is not installed on .*apt-get install git/);
  });
});
