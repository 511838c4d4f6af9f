// The launch-time checks of a git workdir and where its credentials come from (SkyPilot's FAQ,
// "Git and GitHub": GIT_TOKEN for HTTPS; GIT_SSH_KEY_PATH, else ~/.ssh/id_rsa, else id_ed25519).
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { gitCredentials, gitUrlKind } from '../../../src/core/sync/gitAuth';
import { checkGitWorkdir, GitWorkdirError } from '../../../src/core/sync/gitWorkdir';
import { gitScript } from '../../../src/core/sync/gitScript';

const usage = (re: RegExp) => (e: unknown) => e instanceof GitWorkdirError && e.kind === 'usage' && re.test(e.message);

describe('git workdir: checks and credentials', () => {
  it('tells URL kinds apart and refuses what git would misread or store a secret from', () => {
    assert.equal(gitUrlKind('https://github.com/o/r.git'), 'https');
    assert.equal(gitUrlKind('git@github.com:o/r.git'), 'ssh');
    assert.equal(gitUrlKind('ssh://git@h:2222/o/r'), 'ssh');
    assert.equal(gitUrlKind('https://tok@github.com/o/r'), 'https'); // a user name alone is not a secret
    assert.throws(() => checkGitWorkdir({ url: 'https://u:s3cret@github.com/o/r' }), usage(/password or token/));
    // A token given as the user name (GitHub and GitLab accept it) would be in .git/config, ps and every message naming the URL.
    for (const tok of ['ghp_16C7e42F292c6912E7710c838347Ae178B4a', 'github_pat_11ABCDEFG0abc', 'glpat-xxxxxxxxxxxxxxxxxxxx', 'gho_abc']) {
      assert.throws(() => checkGitWorkdir({ url: `https://${tok}@github.com/o/r` }), usage(/password or token/), tok);
    }
    assert.throws(() => checkGitWorkdir({ url: '--upload-pack=touch /tmp/x' }), usage(/not a git URL/));
    assert.throws(() => checkGitWorkdir({ url: 'ext::sh -c x' }), usage(/not a git URL/));
    assert.throws(() => checkGitWorkdir({ url: 'ext::touch%s/tmp/x' }), usage(/not a git URL/));
    assert.throws(() => checkGitWorkdir({ url: 'fd::3' }), usage(/not a git URL/));
    assert.throws(() => checkGitWorkdir({ url: './src' }), usage(/not a git URL/));
    for (const ref of ['-b', 'a..b', 'a b', 'x:y', 'HEAD@{1}', 'br/']) {
      assert.throws(() => checkGitWorkdir({ url: 'https://h/o/r', ref }), usage(/not a branch, tag or commit name/), ref);
    }
    checkGitWorkdir({ url: 'https://h/o/r', ref: 'release/v1.2' });
  });

  it('GIT_TOKEN from the task first, then this machine; only for HTTPS', () => {
    assert.deepEqual(gitCredentials('https', { GIT_TOKEN: 'a' }, { GIT_TOKEN: 'b' }), { token: 'a' });
    assert.deepEqual(gitCredentials('https', {}, { GIT_TOKEN: 'b' }), { token: 'b' });
    assert.deepEqual(gitCredentials('file', { GIT_TOKEN: 'a' }, {}), {});
  });

  it('ssh key: GIT_SSH_KEY_PATH, else id_rsa, else id_ed25519, else none', () => {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-gitkey-'));
    try {
      fs.mkdirSync(path.join(home, '.ssh'));
      assert.deepEqual(gitCredentials('ssh', {}, {}, home), {});
      fs.writeFileSync(path.join(home, '.ssh', 'id_ed25519'), 'ED');
      assert.equal(gitCredentials('ssh', {}, {}, home).sshKey, 'ED\n');
      fs.writeFileSync(path.join(home, '.ssh', 'id_rsa'), 'RSA\n');
      assert.equal(gitCredentials('ssh', {}, {}, home).sshKey, 'RSA\n');
      fs.writeFileSync(path.join(home, 'deploy'), 'DEPLOY\n');
      assert.equal(gitCredentials('ssh', { GIT_SSH_KEY_PATH: '~/deploy' }, {}, home).sshKey, 'DEPLOY\n');
      assert.throws(() => gitCredentials('ssh', {}, { GIT_SSH_KEY_PATH: path.join(home, 'gone') }, home), usage(/cannot be read/));
      assert.deepEqual(gitCredentials('https', {}, {}, home), {});
    } finally {
      fs.rmSync(home, { recursive: true, force: true });
    }
  });

  it('the node script quotes URL, ref and dir, and carries no secret', () => {
    const s = gitScript("~/it's", "https://h/o/r'; touch /tmp/pwn; '", "v1'x");
    assert.ok(s.includes(`'https://h/o/r'\\''; touch /tmp/pwn; '\\'''`), s);
    assert.ok(s.includes(`~/'it'\\''s'`));
  });
});
