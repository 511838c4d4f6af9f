// Every `skydeck.*` setting package.json declares is read by the code (issue 19: a declared
// setting that nothing reads is a promise the extension does not keep).
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? sources(p) : e.name.endsWith('.ts') ? [p] : [];
  });
}

describe('declared settings', () => {
  it('each skydeck.* setting is read somewhere under src/ (its key as a string literal)', () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
    const keys = Object.keys(manifest.contributes.configuration.properties as Record<string, unknown>);
    assert.ok(keys.length >= 7, `only ${keys.length} settings found: the manifest changed shape`);
    const text = sources(path.join(ROOT, 'src')).map((f) => fs.readFileSync(f, 'utf8')).join('\n');
    const unread = keys.filter((k) => {
      const short = k.replace(/^skydeck\./, '');
      return !new RegExp(`['"\`](skydeck\\.)?${short.replace(/\./g, '\\.')}['"\`]`).test(text);
    });
    assert.deepEqual(unread, [], `declared in package.json but never read: ${unread.join(', ')}`);
  });
});
