// Issue 12 items 5, 6 and 11 through the CLI: `validate` and `launch` on the local cloud refuse
// a task the agent would refuse, an escaping file mount and hostile YAML before anything is
// provisioned — no cluster row, no event, nothing written.

import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runCli } from '../../src/cli/main';
import { StateStore, listClusters, listEvents } from '../../src/core/state';

async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(argv, { out: (t) => (out += t), outBytes: (d) => (out += d.toString()), err: (t) => (err += t) });
  return { code, out, err };
}

const LOCAL = 'resources:\n  cloud: local\n';

describe('cli: invalid tasks are refused before provisioning', () => {
  const saved = { ...process.env };
  let workspace: string;
  let dir: string;
  let escapeTarget: string;

  beforeEach(() => {
    workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-refuse-ws-'));
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-refuse-task-'));
    fs.writeFileSync(path.join(dir, 'a.txt'), 'secret\n');
    Object.assign(process.env, { SKYDECK_WORKSPACE: workspace, HOME: fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-refuse-home-')) });
    escapeTarget = path.resolve(process.cwd(), '../../adv-rel-escape.txt');
  });
  afterEach(() => {
    for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
    Object.assign(process.env, saved);
  });

  function task(name: string, yaml: string): string {
    const f = path.join(dir, name);
    fs.writeFileSync(f, yaml);
    return f;
  }

  async function nothingProvisioned(): Promise<void> {
    const store = await StateStore.openWorkspace(workspace);
    try {
      assert.deepEqual(await store.read((db) => listClusters(db)), []);
      assert.deepEqual(await store.read((db) => listEvents(db)), []);
    } finally {
      store.close();
    }
  }

  const cases: [string, string, () => string, RegExp][] = [
    ['issue 12.5: a 300-character name', 'name.yaml', () => `name: ${'n'.repeat(300)}\n${LOCAL}run: echo hi\n`,
      /name\.yaml:1:7: error: name is 300 characters long; the agent on the node accepts at most 256/],
    ['issue 12.5: a 200 KB env', 'env.yaml', () => `${LOCAL}envs:\n  BIG: ${'e'.repeat(200 * 1024)}\nrun: echo hi\n`,
      /env\.yaml:4:8: error: envs\.BIG is too large: 204,804 bytes/],
    ['issue 12.5: a run over the agent\'s size limit', 'run.yaml', () => `${LOCAL}run: echo ${'r'.repeat(1 << 20)}\n`,
      /run\.yaml:3:6: error: run is 1,048,581 characters long; the agent on the node accepts at most 1,048,576/],
    ['issue 12.6: a ../../ file_mounts destination', 'escape.yaml', () => `${LOCAL}file_mounts:\n  ../../adv-rel-escape.txt: ./a.txt\nrun: echo hi\n`,
      /escape\.yaml:4:3: error: the file_mounts destination "\.\.\/\.\.\/adv-rel-escape\.txt" is a relative path/],
    ['issue 12.6: a relative file_mounts destination', 'relative.yaml', () => `${LOCAL}file_mounts:\n  copied.txt: ./a.txt\nrun: echo hi\n`,
      /relative\.yaml:4:3: error: the file_mounts destination "copied\.txt" is a relative path/],
    ['issue 12.11: 100k nested [', 'deep.yaml', () => `${LOCAL}run: echo hi\nconfig: ${'['.repeat(100_000)}\n`,
      /deep\.yaml:4:109: error: the YAML is nested too deeply here/],
    ['issue 12.11: binary junk', 'junk.yaml', () => `${LOCAL}run: echo hi\n\x1b]0;pwned\x07: \x9b2J\n`,
      /junk\.yaml:4:1: error: unknown field "\\x1b\]0;pwned\\x07"/],
  ];

  for (const [title, file, yaml, expected] of cases) {
    it(`${title}: validate and launch on the local cloud refuse it, with nothing provisioned`, async () => {
      const f = task(file, yaml());
      const v = await cli('validate', f);
      assert.equal(v.code, 2, v.err + v.out);
      assert.match(v.err, expected);
      assert.doesNotMatch(v.err + v.out, /[\x00-\x09\x0b-\x1f\x7f-\x9f]/);
      const l = await cli('launch', f, '-c', 'refused', '-y', '-d');
      assert.equal(l.code, 2, l.err);
      assert.match(l.err, expected);
      assert.doesNotMatch(l.err + l.out, /[\x00-\x09\x0b-\x1f\x7f-\x9f]/);
      await nothingProvisioned();
      assert.equal(fs.existsSync(escapeTarget), false);
      assert.equal(fs.existsSync(path.join(process.cwd(), 'copied.txt')), false);
    });
  }

  it('issue 12.11: validate and launch refuse an oversize file from its size, with nothing provisioned', async () => {
    const f = task('huge.yaml', `${LOCAL}run: echo hi\n`);
    fs.truncateSync(f, 64 << 20);
    for (const argv of [['validate', f], ['launch', f, '-c', 'refused', '-y', '-d']]) {
      const r = await cli(...argv);
      assert.equal(r.code, 2, r.err);
      assert.match(r.err, /huge\.yaml:1:1: error: the file is 67,108,864 bytes; a task file may be at most 4 MiB/);
    }
    await nothingProvisioned();
  });

  it('issue 12.6: validate says that on the local cloud ~ is this machine\'s home', async () => {
    const r = await cli('validate', task('home.yaml', `${LOCAL}file_mounts:\n  ~/data/a.txt: ./a.txt\nrun: cat ~/data/a.txt\n`));
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, new RegExp(`home\\.yaml: note: on the local cloud the cluster is this machine: .*~ is this machine's home \\(${process.env.HOME}\\), so "~/data/a\\.txt" is written to "${process.env.HOME}/data/a\\.txt"`));
  });
});
