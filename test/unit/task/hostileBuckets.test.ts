// Issue 16 review: hostile bucket and git input in a task file. Each is refused at parse with
// its position and a fix; nothing that reaches rclone or git can be read as an option there.

import assert from 'node:assert/strict';
import { checkGitWorkdir } from '../../../src/core/sync/gitWorkdir';
import { parse } from './helpers';

const errorsOf = (yaml: string) =>
  parse(yaml).diagnostics.filter((d) => d.severity === 'error').map((d) => `${d.line}:${d.col} ${d.path}: ${d.message} | ${d.hint ?? ''}`);

const gitTask = (url: string, ref?: string) =>
  `workdir:\n  url: ${JSON.stringify(url)}\n${ref === undefined ? '' : `  ref: ${JSON.stringify(ref)}\n`}`;

describe('task YAML: hostile bucket and git input (issue 16 review)', () => {
  it('a git URL whose host or user starts with "-" is refused at parse and at launch (ssh option injection)', () => {
    for (const url of ['ssh://-oProxyCommand=touch${IFS}/tmp/pwn/x', 'ssh://git@-oProxyCommand=id/x', '-oProxyCommand=id:x',
      'git@-oProxyCommand=id:repo', 'ssh://-lroot@host/x', 'https://-x/y']) {
      const errs = errorsOf(gitTask(url));
      assert.equal(errs.length, 1, `${url}: ${errs.join('\n')}`);
      assert.match(errs[0], /^2:\d+ workdir\.url: /, url);
      assert.throws(() => checkGitWorkdir({ url }), /not a git URL|option/, url);
    }
  });

  it('a git remote-helper URL (ext::, fd::) is refused at parse, not only at launch', () => {
    for (const url of ['ext::sh%20-c%20id', 'fd::3', 'host::path']) {
      const errs = errorsOf(gitTask(url));
      assert.equal(errs.length, 1, `${url}: ${errs.join('\n')}`);
      assert.match(errs[0], /workdir\.url: /);
    }
  });

  it('a "-"-leading or revision-expression ref never passes', () => {
    for (const ref of ['--upload-pack=touch /tmp/x', '-b', 'main^{tree}', 'a..b', 'HEAD@{1}', 'x\ny', 'x:y']) {
      assert.equal(errorsOf(gitTask('https://github.com/o/r', ref)).length, 1, ref);
      assert.throws(() => checkGitWorkdir({ url: 'https://github.com/o/r', ref }), ref);
    }
  });

  it('a bucket URL path with control characters (terminal escapes) is refused with its position', () => {
    for (const src of ['s3://bkt/a\u001b[31mred', 'gs://bkt/x\u0007', 'r2://bkt/p\u007f', 's3://bkt/a\u0085b']) {
      const errs = errorsOf(`file_mounts:\n  /data: ${JSON.stringify(src)}\n`);
      assert.equal(errs.length, 1, `${JSON.stringify(src)}: ${errs.join('\n')}`);
      assert.match(errs[0], /^2:\d+ file_mounts\["\/data"\]: .*control/);
    }
  });

  it('shell words in a bucket prefix are data: accepted as a path, never a control character', () => {
    const r = parse('file_mounts:\n  /data: "s3://bkt/$(touch${IFS}x)/`id`/\'q\'/-rf"\n');
    assert.deepEqual(r.diagnostics.filter((d) => d.severity === 'error'), []);
    const m = r.tasks[0].fileMounts['/data'];
    assert.ok(m.kind === 'bucket' && m.mount.kind === 'url');
    assert.equal(m.mount.prefix, "$(touch${IFS}x)/`id`/'q'/-rf");
  });

  it('a bucket mounted or copied over /, ~, a system directory, ~/.ssh or the agent\'s ~/.skydeck is refused at its key', () => {
    for (const dst of ['/', '~', '/home', '/etc', '/usr', '/bin', '/root', '/var', '/tmp', '~/.skydeck', '~/.skydeck/storage',
      '~/.ssh', '~/.ssh/keys', '//', '/etc/', '~/']) {
      for (const body of ['s3://bkt', '{source: s3://bkt, mode: MOUNT}']) {
        const errs = errorsOf(`file_mounts:\n  ${JSON.stringify(dst)}: ${body}\n`);
        assert.equal(errs.length, 1, `${dst} ${body}: ${errs.join('\n')}`);
        assert.match(errs[0], /^2:3 file_mounts\[.*\]: the file_mounts destination .* (is the|is inside)/, dst);
      }
    }
  });

  it('ordinary destinations near the refused ones still pass', () => {
    for (const dst of ['/data', '/home/me/ckpt', '/tmp/x', '~/data', '~/.skydeck-data', '~/sshx', '/etcetera']) {
      const r = parse(`file_mounts:\n  ${JSON.stringify(dst)}: s3://bkt\n`);
      assert.deepEqual(r.diagnostics.filter((d) => d.severity === 'error').map((d) => d.message), [], dst);
    }
  });

  it('a 1 MB prefix or bucket name is refused quickly with a short message', () => {
    const errs = errorsOf(`file_mounts:\n  /d: "s3://${'b'.repeat(1_000_000)}"\n  /e: {name: "${'n'.repeat(1_000_000)}", store: s3}\n`);
    assert.equal(errs.length, 2, errs.join('\n').slice(0, 500));
    for (const e of errs) assert.ok(e.length < 1000, `message of ${e.length} characters`);
  });

  it('config: values that look like rclone options or carry shell words are refused at their position', () => {
    const cases: [string, RegExp][] = [
      ['{mount_cached: {vfs_cache_max_size: "--allow-other"}}', /config\.mount_cached\.vfs_cache_max_size must be a size/],
      ['{mount_cached: {buffer_size: "1M --allow-other"}}', /buffer_size must be a size/],
      ['{mount_cached: {vfs_write_back: "$(id)"}}', /vfs_write_back must be a duration/],
      ['{mount_cached: {vfs_read_ahead: "1G\\n--daemon"}}', /vfs_read_ahead must be a size/],
      ['{mount_cached: {transfers: "8 --allow-root"}}', /transfers must be a whole number/],
      ['{mount_cached: {read_only: "--allow-other"}}', /read_only must be true or false/],
      ['{mount_cached: {"--allow-other": true}}', /unknown setting "--allow-other"/],
      ['{"--daemon": {}}', /unknown section "--daemon"/],
    ];
    for (const [config, re] of cases) {
      const errs = errorsOf(`file_mounts:\n  /d: {source: s3://bkt, mode: MOUNT_CACHED, config: ${config}}\n`);
      assert.equal(errs.length, 1, `${config}: ${errs.join('\n')}`);
      assert.match(errs[0], re, config);
      assert.match(errs[0], /^2:\d+ /, config);
    }
  });

  it('an unknown type: preset is an error, not silently ignored', () => {
    const errs = errorsOf('file_mounts:\n  /d: {source: s3://bkt, mode: MOUNT_CACHED, type: "--allow-other"}\n');
    assert.equal(errs.length, 1, errs.join('\n'));
  });
});
