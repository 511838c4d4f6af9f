// Issue 12.11: hostile task files (deep nesting, binary junk, huge or endless files) get a
// clear, positioned, printable answer instead of a stack overflow, raw control bytes or a
// long parse.

import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { MAX_TASK_FILE_BYTES, formatDiagnostic, parseTaskFile, parseTaskText } from '../../../src/core/task';

/** Terminal control characters: C0 (but the newline between lines), DEL, C1, bidi/zero-width. */
const CONTROL = /[\x00-\x09\x0b-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069]/;

function tmpFile(name: string, content?: string | Buffer): string {
  const f = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-hostile-')), name);
  if (content !== undefined) fs.writeFileSync(f, content);
  return f;
}

describe('task YAML: hostile input', () => {
  it('issue 12.11: 100k nested [ says "nested too deeply" with its position', () => {
    const r = parseTaskText(`run: x\nconfig: ${'['.repeat(100_000)}\n`, 't.yaml');
    assert.equal(r.ok, false);
    assert.equal(r.diagnostics.length, 1);
    const d = r.diagnostics[0];
    assert.match(d.message, /nested too deeply here \(more than 100 levels/);
    // The 101st "[" ("config: " is 8 characters): found by the lexer pass, before the parser runs.
    assert.deepEqual([d.line, d.col], [2, 9 + 100]);
    assert.doesNotMatch(formatDiagnostic(d), /call stack/);
  });

  it('issue 12.11: 3,000 nested maps and lists, block or flow, say "nested too deeply" with the position', () => {
    // One space per level keeps 2,500 block levels under the file size limit.
    let maps = 'run: x\nconfig:\n';
    for (let i = 0; i < 2500; i++) maps += `${' '.repeat(i + 1)}k${i}:\n`;
    const r = parseTaskText(maps, 't.yaml');
    assert.equal(r.diagnostics.length, 1, r.diagnostics.map((d) => d.message).join('\n'));
    assert.match(r.diagnostics[0].message, /nested too deeply/);
    // The task is level 1, the map holding k0 (line 3) level 2, so k99 (line 102) opens level 101.
    assert.deepEqual([r.diagnostics[0].line, r.diagnostics[0].col], [102, 101]);

    for (const text of [
      `run: x\nconfig: ${'{a: '.repeat(3000)}1${'}'.repeat(3000)}\n`,
      `run: x\nenvs:\n  ${'- '.repeat(3000)}x\n`,
      `${'- '.repeat(3000)}x\n`,
      `run: x\nconfig:\n${Array.from({ length: 2500 }, (_, i) => `${' '.repeat(i)}-`).join('\n')}\n`,
    ]) {
      const d = parseTaskText(text).diagnostics;
      assert.ok(d.some((x) => /nested too deeply/.test(x.message)), `${text.slice(0, 40)}: ${d.map((x) => x.message).join('; ')}`);
      assert.ok(!d.some((x) => /call stack|internal error/.test(x.message)));
    }
  });

  it('issue 12.11: nesting up to the limit in flow and block style is read normally', () => {
    // config (1) > kubernetes (2) > pod_config (3) > 97 lists = 100 levels.
    const flow = parseTaskText(`run: x\nconfig:\n  kubernetes:\n    pod_config:\n      a: ${'['.repeat(96)}1${']'.repeat(96)}\n`);
    assert.deepEqual(flow.diagnostics.map((d) => d.message), []);
    assert.ok(parseTaskText(`run: x\nconfig:\n  kubernetes:\n    pod_config:\n      a: ${'['.repeat(97)}1${']'.repeat(97)}\n`).diagnostics[0].message.includes('nested too deeply'));
    // Brackets inside a block scalar or a quoted string are text, not nesting.
    const text = parseTaskText(`run: |\n  echo "${'['.repeat(5000)}"\nsetup: '${'{'.repeat(5000)}'\nname: a${'['.repeat(200)}\n# ${'{'.repeat(500)}\n`);
    assert.deepEqual(text.diagnostics.map((d) => d.message), []);
  });

  it('issue 12.11: control bytes from the input are escaped in every message', () => {
    const junk = 'run: x\nfo\x1b]0;pwned\x07o\x1b[31m: 1\n\x9b2Jbar\u202e: \x00\nnum_nodes: "\x9b2J\x7f"\n';
    const broken = 'run: x\nname: [\x7f\x08\x1b[2J\n';
    const r = parseTaskText(junk, 'bad\x1b[1m.yaml');
    const all = [...r.diagnostics, ...parseTaskText(broken, 'bad\x1b[1m.yaml').diagnostics];
    assert.ok(all.length >= 4, all.map((d) => d.message).join('\n'));
    for (const d of all) {
      const line = formatDiagnostic(d);
      assert.doesNotMatch(line, CONTROL, JSON.stringify(line));
      assert.doesNotMatch(`${d.message} ${d.hint ?? ''} ${d.path}`, CONTROL, JSON.stringify(d));
    }
    assert.ok(r.diagnostics.some((d) => /\\(x1b|u001b)\]0;pwned\\(x07|u0007)/.test(d.message)), JSON.stringify(r.diagnostics));
    assert.ok(r.diagnostics.some((d) => d.message.includes('\\x9b2J\\x7f')), JSON.stringify(r.diagnostics));
    assert.match(formatDiagnostic(r.diagnostics[0]), /^bad\\x1b\[1m\.yaml:/);
  });

  it('issue 12.11: random binary files give printable messages only', async () => {
    let seed = 12;
    const byte = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) >> 16) & 0xff;
    for (let i = 0; i < 40; i++) {
      const f = tmpFile('junk.yaml', Buffer.from(Array.from({ length: 64 + i * 16 }, byte)));
      for (const d of (await parseTaskFile(f)).diagnostics) assert.doesNotMatch(formatDiagnostic(d), CONTROL, JSON.stringify(formatDiagnostic(d)));
    }
  });

  it('issue 12.11: a task file over the size limit is refused from its size, before it is read', async () => {
    // 64 GiB, sparse: reading it first would fail or take minutes.
    const f = tmpFile('huge.yaml');
    fs.writeFileSync(f, 'run: x\n');
    fs.truncateSync(f, 64 * 1024 ** 3);
    const r = await parseTaskFile(f);
    assert.equal(r.ok, false);
    assert.equal(r.diagnostics.length, 1);
    assert.equal(r.diagnostics[0].message, 'the file is 68,719,476,736 bytes; a task file may be at most 4 MiB');
    assert.equal(MAX_TASK_FILE_BYTES, 4 * 1024 * 1024);
    // Just over the limit is refused; at the limit it is read.
    fs.truncateSync(f, MAX_TASK_FILE_BYTES + 1);
    assert.match((await parseTaskFile(f)).diagnostics[0].message, /may be at most 4 MiB/);
    fs.writeFileSync(f, `run: x\n#${'x'.repeat(MAX_TASK_FILE_BYTES - 9)}\n`);
    assert.equal(fs.statSync(f).size, MAX_TASK_FILE_BYTES);
    assert.deepEqual((await parseTaskFile(f)).diagnostics.map((d) => d.message), []);
    // Text handed over directly (the editor) has the same limit.
    assert.match(parseTaskText(`run: ${'é'.repeat(MAX_TASK_FILE_BYTES / 2)}\n`).diagnostics[0].message, /may be at most 4 MiB/);
  });

  it('issue 12.11: an endless file (/dev/zero) is refused after the limit, not read forever', async () => {
    const r = await parseTaskFile('/dev/zero');
    assert.equal(r.ok, false);
    assert.match(r.diagnostics[0].message, /the file is over 4,194,304 bytes; a task file may be at most 4 MiB/);
  });

  it('issue 12.11: a directory is named as one', async () => {
    const r = await parseTaskFile(os.tmpdir());
    assert.match(r.diagnostics[0].message, /this is a directory, not a task file/);
  });
});
