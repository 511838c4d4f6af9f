// Bad input never throws and never reaches the internal-error fallback: every problem is a
// positioned diagnostic inside the text.

import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ParseResult, parseTaskText } from '../../../src/core/task';
import { prng } from '../../support/prng';

const examplesDir = join(__dirname, '..', '..', '..', 'examples');


function checkSane(text: string, r: ParseResult): void {
  const lines = text.split(/\r\n|\r|\n/).length;
  assert.equal(typeof r.ok, 'boolean');
  assert.equal(r.ok, !r.diagnostics.some((d) => d.severity === 'error'));
  for (const d of r.diagnostics) {
    assert.ok(!d.message.startsWith('internal error'), `${d.message}\n--- input:\n${text}`);
    assert.ok(d.line >= 1 && d.line <= lines + 1 && d.col >= 1, `position ${d.line}:${d.col} outside the text`);
    assert.ok(d.message.length > 0);
  }
}

const PIECES = [':', ' ', '\n', '  ', '-', '[', ']', '{', '}', '"', "'", '#', '&a', '*a', '|', '>', '?', ',', '\t', '---\n', '~', 'null', '4+', 'A100:x', '<<: '];

describe('task YAML: robustness', () => {
  const originals = readdirSync(examplesDir).map((f) => readFileSync(join(examplesDir, f), 'utf8'));

  it('survives 600 random edits of the examples', () => {
    const random = prng(20240607);
    for (let i = 0; i < 600; i++) {
      let text = originals[i % originals.length];
      const edits = 1 + Math.floor(random() * 4);
      for (let e = 0; e < edits; e++) {
        const at = Math.floor(random() * (text.length + 1));
        const kind = random();
        if (kind < 0.4) text = text.slice(0, at) + text.slice(at + 1 + Math.floor(random() * 8));
        else text = text.slice(0, at) + PIECES[Math.floor(random() * PIECES.length)] + text.slice(at);
      }
      checkSane(text, parseTaskText(text, 'fuzz.yaml'));
    }
  });

  it('survives random bytes', () => {
    const random = prng(7);
    for (let i = 0; i < 200; i++) {
      const text = Array.from({ length: Math.floor(random() * 200) }, () => String.fromCharCode(Math.floor(random() * 0x3000))).join('');
      checkSane(text, parseTaskText(text));
    }
  });

  it('refuses an alias bomb without expanding it', () => {
    const bomb = ['a: &a ["x","x","x","x","x","x","x","x","x"]'];
    for (let i = 1; i < 9; i++) bomb.push(`${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(9).fill(`*${String.fromCharCode(96 + i)}`).join(',')}]`);
    const text = `${bomb.join('\n')}\n`;
    // Refused by the alias count, not by running out of time or memory.
    const r = parseTaskText(text, 'bomb.yaml');
    assert.equal(r.ok, false);
    assert.match(r.diagnostics[0].message, /^cannot expand the YAML aliases/);
    checkSane(text, r);
  });

  it('handles deep nesting', () => {
    const text = `resources: ${'['.repeat(2000)}${']'.repeat(2000)}\n`;
    const r = parseTaskText(text);
    assert.equal(r.ok, false);
    checkSane(text, r);
  });

  it('does not let __proto__ keys reach the prototype', () => {
    const text = [
      '__proto__: {polluted: 1}',
      'resources:',
      '  __proto__: {cloud: aws}',
      '  any_of: [{__proto__: {cloud: gcp}}]',
      'envs:',
      '  __proto__: x',
      'file_mounts:',
      '  __proto__: ./here',
      '',
    ].join('\n');
    const r = parseTaskText(text);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    assert.deepEqual(r.diagnostics.map((d) => `${d.line}:${d.col} ${d.message}`), [
      '1:1 unknown field "__proto__"',
      '3:3 unknown field "__proto__" in resources',
      '4:13 unknown field "__proto__" in resources.any_of[0]',
      // Issue 12.6: a destination must be absolute or under ~/, so this one is refused.
      '8:3 the file_mounts destination "__proto__" is a relative path',
    ]);
    const t = r.tasks[0];
    // `__proto__` is a valid variable name; it stays an ordinary own key.
    assert.deepEqual(Object.entries(t.envs), [['__proto__', 'x']]);
    assert.deepEqual(Object.entries(t.fileMounts), []);
    assert.equal(Object.getPrototypeOf(t.fileMounts), Object.prototype);
    assert.equal(t.resources.cloud, undefined);
    assert.equal(t.resources.anyOf?.[0].cloud, undefined);
  });

  it('accepts any value passed as text without throwing', () => {
    checkSane('', parseTaskText(undefined as unknown as string));
    checkSane('', parseTaskText(42 as unknown as string));
    checkSane('', parseTaskText('\r\nrun: echo\r\n'));
  });
});
