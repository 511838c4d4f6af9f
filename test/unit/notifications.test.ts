import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { noLinks } from '../../src/ui/plainText';

const ROOT = path.resolve(__dirname, '../..');

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(path.join(dir, e.name)) : /\.tsx?$/.test(e.name) ? [path.join(dir, e.name)] : [],
  );
}

// VS Code's notification renderer turns [label](command:…|https:…|file:…) into a link.
const LINK = /\[([^\]]+)\]\(((?:https?:\/\/|command:|file:)[^)\s]+)\)/i;

describe('issue 13.4: untrusted text in notifications and tooltips', () => {
  it('issue 13.4: noLinks leaves no Markdown link in a hostile YAML key, stderr or cloud message', () => {
    for (const hostile of [
      'unknown key "[Run me](command:workbench.action.terminal.sendSequence?%7B%22text%22%3A%22id%5Cn%22%7D)"',
      'ssh: [docs](https://evil.example/) said no',
      'error [a](file:///etc/passwd) and [b](command:skydeck.downCluster)',
      '[[nested]](command:x)',
    ]) {
      const out = noLinks(hostile);
      assert.doesNotMatch(out, LINK, out);
      assert.equal(out.replace(/\] \(/g, ']('), hostile, 'nothing else changes');
    }
    assert.equal(noLinks('plain text (with parens) and [brackets]'), 'plain text (with parens) and [brackets]');
  });

  it('issue 13.4: every notification call in the extension goes through the escaping helper', () => {
    const direct = sources(path.join(ROOT, 'src'))
      .filter((f) => !f.endsWith(path.join('src', 'ui', 'notify.ts')))
      .filter((f) => /\bshow(Error|Warning|Information)Message\b/.test(fs.readFileSync(f, 'utf8')))
      .map((f) => path.relative(ROOT, f));
    assert.deepEqual(direct, []);
    const helper = fs.readFileSync(path.join(ROOT, 'src/ui/notify.ts'), 'utf8');
    for (const kind of ['Error', 'Warning', 'Information']) assert.match(helper, new RegExp(`show${kind}Message`));
    assert.match(helper, /noLinks\(message\)/);
  });

  it('issue 13.4: no Markdown tooltip is trusted or built from interpolated values', () => {
    const offenders: string[] = [];
    for (const f of sources(path.join(ROOT, 'src/ui'))) {
      const text = fs.readFileSync(f, 'utf8');
      if (/isTrusted\s*=\s*true|isTrusted:\s*true/.test(text)) offenders.push(`${f}: isTrusted`);
      if (/new vscode\.MarkdownString\(\s*(`[^`]*\$\{|\[)/.test(text)) offenders.push(`${f}: interpolated MarkdownString`);
      if (/appendMarkdown\(`[^`]*\$\{(?!label\})/.test(text)) offenders.push(`${f}: interpolated appendMarkdown`);
    }
    assert.deepEqual(offenders, []);
  });
});
