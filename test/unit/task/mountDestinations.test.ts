// Issue 12.6: file_mounts destinations may not escape: absolute or ~/… only, no `..`, refused
// by the parser with a position and again by the sync code.

import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Readable } from 'node:stream';
import { OpsError } from '../../../src/core/ops/errors';
import { checkSyncSources, syncFileMounts, syncWorkdir } from '../../../src/core/ops/syncFiles';
import type { Task } from '../../../src/core/task';
import type { Transport } from '../../../src/core/transport';
import { parse } from './helpers';

const errorsOf = (yaml: string, env?: Record<string, string>) =>
  parse(yaml, env).diagnostics.filter((d) => d.severity === 'error').map((d) => `${d.line}:${d.col} ${d.path}: ${d.message}`);

/** A transport that records every command and runs none. */
function recordingTransport(): Transport & { commands: string[] } {
  const commands: string[] = [];
  const t = {
    description: 'recorder',
    commands,
    async execShell(script: string, opts?: { stdin?: Readable }) {
      commands.push(script);
      opts?.stdin?.resume();
      return { code: 0, stdout: Buffer.alloc(0), stderr: Buffer.alloc(0) };
    },
    async exec(argv: string[]) {
      commands.push(argv.join(' '));
      return { code: 0, stdout: Buffer.alloc(0), stderr: Buffer.alloc(0) };
    },
  };
  return t as unknown as Transport & { commands: string[] };
}

function taskWithMounts(fileMounts: Task['fileMounts']): Task {
  return {
    numNodes: 1, envs: {}, secrets: {}, fileMounts, raw: {}, docIndex: 0,
    resources: { accelerators: [], acceleratorsOrdered: false, useSpot: false, ports: [], labels: {} },
  };
}

describe('task YAML: file_mounts destinations', () => {
  it('issue 12.6: relative, "..", ~user and empty destinations are errors at their keys', () => {
    const yaml = [
      'file_mounts:',
      '  ../../adv-rel-escape.txt: ./a',
      '  rel/x: ./a',
      '  /data/../../etc/x: ./a',
      '  ~/../x: ./a',
      '  ~other/x: ./a',
      '  "": ./a',
      '  /data/ok: ./a',
      '  ~/ok: ./a',
      '  "~": ./dir',
      'run: x',
      '',
    ].join('\n');
    assert.deepEqual(errorsOf(yaml), [
      '2:3 file_mounts["../../adv-rel-escape.txt"]: the file_mounts destination "../../adv-rel-escape.txt" is a relative path',
      '3:3 file_mounts["rel/x"]: the file_mounts destination "rel/x" is a relative path',
      '4:3 file_mounts["/data/../../etc/x"]: the file_mounts destination "/data/../../etc/x" has a ".." segment',
      '5:3 file_mounts["~/../x"]: the file_mounts destination "~/../x" has a ".." segment',
      '6:3 file_mounts["~other/x"]: the file_mounts destination "~other/x" names another user\'s home (~user); only ~/… (the home of the user Skydeck logs in as) is allowed',
      '7:3 file_mounts[""]: the file_mounts destination "" is empty',
    ]);
    const d = parse(yaml).diagnostics[0];
    assert.match(d.hint ?? '', /absolute path .* under the home directory/);
    assert.deepEqual(Object.keys(parse(yaml).tasks[0].fileMounts), ['/data/ok', '~/ok', '~']);
  });

  it('issue 12.6: a destination built from an env is checked once the value is known', () => {
    const yaml = 'envs:\n  DIR: null\n  UP: ../..\nfile_mounts:\n  $DIR/x: ./a\n  /data/$UP/etc: ./b\nrun: x\n';
    // Without launch values, $DIR stands for an absolute path; $UP is known and escapes.
    assert.deepEqual(errorsOf(yaml), [
      '6:3 file_mounts["/data/$UP/etc"]: the file_mounts destination "/data/$UP/etc" ("/data/../../etc" after filling in $-references) has a ".." segment',
    ]);
    assert.deepEqual(errorsOf(yaml.replace('  /data/$UP/etc: ./b\n', ''), { DIR: '/mnt' }), []);
    assert.deepEqual(errorsOf(yaml.replace('  /data/$UP/etc: ./b\n', ''), { DIR: '../x' }), [
      '5:3 file_mounts["$DIR/x"]: the file_mounts destination "$DIR/x" ("../x/x" after filling in $-references) is a relative path',
    ]);
  });

  it('issue 12.6: sync refuses an escaping destination even from a task that skipped the parser', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-mounts-'));
    fs.writeFileSync(path.join(dir, 'a.txt'), 'x');
    for (const dst of ['../../adv-rel-escape.txt', 'rel.txt', '/tmp/../../x.txt', '~/../x.txt', '~root/x.txt']) {
      const task = taskWithMounts({ [dst]: { kind: 'copy', source: './a.txt' } });
      assert.throws(() => checkSyncSources(task, dir), (e: unknown) => e instanceof OpsError && /refusing to write there/.test(e.message), dst);
      const t = recordingTransport();
      await assert.rejects(syncFileMounts(t, 'python3', task, dir), (e: unknown) => e instanceof OpsError && /refusing to write there/.test(e.message), dst);
      assert.deepEqual(t.commands, [], `${dst}: a command was run`);
    }
    // A good destination still syncs (the recorder sees one untar).
    const t = recordingTransport();
    assert.equal(await syncFileMounts(t, 'python3', taskWithMounts({ '~/in/a.txt': { kind: 'copy', source: './a.txt' } }), dir), 1);
    assert.equal(t.commands.length, 1);
    assert.match(t.commands[0], /D="\$HOME"\/in;/);
  });

  it('issue 12.6: the workdir sync refuses a relative or ".." directory recorded for the cluster', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-wd-'));
    for (const remote of ['sky_workdir', '../../', '/home/u/../../etc', '~/sky_workdir']) {
      const t = recordingTransport();
      await assert.rejects(async () => syncWorkdir(t, 'python3', dir, remote, { nodeStateDir: path.join(dir, 'node-state'), localStateDir: path.join(dir, 'local-state') }), (e: unknown) => e instanceof OpsError && /refusing to sync into it/.test(e.message), remote);
      assert.deepEqual(t.commands, [], `${remote}: a command was run`);
    }
  });
});
