// Huge and malformed managed jobs are refused with a message saying what is wrong, and nothing
// is recorded: through `skydeck jobs launch` (a file) and through submit itself (the seam a
// remote controller's request comes in by, which never saw a file).
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runCli } from '../../../src/cli/main';
import type { OpsContext } from '../../../src/core/ops';
import type { ManagedController } from '../../../src/core/managed';
import { cleanupBase } from '../agent/helpers';
import { makeCtx, openController, tempRoot } from './helpers';

const task = (i: number) => `name: t${i}\nresources:\n  infra: aws/r1\nrun: echo ${i}\n`;
const hundred = Array.from({ length: 100 }, (_, i) => task(i));
const tenMb = `resources:\n  infra: aws/r1\nrun: |\n${'  echo 0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\n'.repeat(150_000)}`;

const CASES: { what: string; file: Buffer; tasks: string[]; cli: RegExp; submit: RegExp }[] = [
  { what: '100 documents', file: Buffer.from(hundred.join('---\n')), tasks: hundred, cli: /at most 32 tasks; this one has 100/, submit: /at most 32 tasks; this one has 100/ },
  { what: 'a 10 MB YAML', file: Buffer.from(tenMb), tasks: [tenMb], cli: /a task file may be at most 4 MiB/, submit: /tasks are 10,\d{3},\d{3} bytes; at most/ },
  { what: 'a document that is a list', file: Buffer.from('run: echo a\n---\n- run: echo b\n- run: echo c\n'), tasks: ['run: echo a\n', '- run: echo b\n- run: echo c\n'], cli: /a task must be a mapping of fields.*got a list/, submit: /task 2 of the managed job is not one valid task: a task must be a mapping/ },
  {
    what: 'bytes that are not UTF-8', file: Buffer.from('resources:\n  infra: aws/r1\nrun: echo \xff\xfe caf\xe9\n', 'latin1'),
    tasks: [Buffer.from('resources:\n  infra: aws/r1\nrun: echo \xff\xfe\n', 'latin1').toString('utf8')], cli: /task 1 of the managed job is not UTF-8 text \(line 3/, submit: /not UTF-8 text \(line 3/,
  },
  { what: 'a task that is not text', file: Buffer.from('run: [unclosed\n'), tasks: [42 as unknown as string], cli: /unclosed|flow|end/i, submit: /task 1 of the managed job is not YAML text/ },
];

describe('managed jobs: huge and malformed pipelines are refused, nothing recorded', function () {
  this.timeout(120_000);
  let root: string;
  let ctx: OpsContext;
  let ctl: ManagedController;

  before(async () => {
    root = tempRoot();
    ({ ctx } = await makeCtx(root));
    // Holds the store's lease, so `jobs launch` never starts a controller process.
    ctl = await openController(ctx);
  });
  after(async () => {
    await ctl?.stop();
    await ctx.connections.closeAll();
    ctx.store.close();
    await cleanupBase(root);
  });

  for (const c of CASES) {
    it(`${c.what}: jobs launch exits non-zero naming the problem; submit throws; no job recorded`, async () => {
      const f = path.join(root, `${c.what.replace(/\W+/g, '-')}.yaml`);
      fs.writeFileSync(f, c.file);
      let out = '';
      let err = '';
      const code = await runCli(['jobs', 'launch', f, '-d', '-y'], { out: (t) => (out += t), outBytes: (d) => (out += d.toString()), err: (t) => (err += t) }, async () => ctx);
      assert.notEqual(code, 0, err);
      assert.match(err, c.cli);
      assert.equal(out, '', 'no job id printed');
      await assert.rejects(ctl.submit({ tasks: c.tasks }), c.submit);
      assert.deepEqual((await ctl.list()).jobs, [], 'nothing was recorded');
    });
  }
});
