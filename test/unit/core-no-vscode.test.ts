// DESIGN.md rule: nothing under src/core/ imports `vscode`, so the core runs in the CLI and in
// plain Node tests. This reads every source file under src/core/ and fails on any such import.

import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = join(__dirname, '..', '..');
const core = join(root, 'src', 'core');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) return sourceFiles(full);
    return /\.(ts|tsx|js|mjs|cjs|mts|cts)$/.test(name) ? [full] : [];
  });
}

/** `import … from 'vscode'`, `import 'vscode'`, `require('vscode')`, `import('vscode')`, `export … from 'vscode'`. */
const VSCODE_IMPORT = /(?:\bfrom\s*|\bimport\s*|\brequire\s*\(\s*|\bimport\s*\(\s*)['"]vscode(?:\/[^'"]*)?['"]/;

export function importsVscode(source: string): boolean {
  const withoutComments = source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:])\/\/.*$/gm, '$1');
  return VSCODE_IMPORT.test(withoutComments);
}

describe('src/core does not import vscode', () => {
  it('the check recognises every import form', () => {
    for (const s of [
      "import * as vscode from 'vscode';", 'import { window } from "vscode";', "import 'vscode';",
      "const v = require('vscode');", "const v = await import('vscode');", "export { Uri } from 'vscode';",
      "import type { Uri } from 'vscode';",
    ]) assert.equal(importsVscode(s), true, s);
    for (const s of ["import { x } from './vscode-like';", "// import * as vscode from 'vscode';", "const s = 'vscode';", "import x from 'vscode-uri';"]) {
      assert.equal(importsVscode(s), false, s);
    }
  });

  it('no file under src/core/ imports vscode', () => {
    const files = sourceFiles(core);
    assert.ok(files.length > 0, 'no source files found under src/core');
    const offenders = files.filter((f) => importsVscode(readFileSync(f, 'utf8'))).map((f) => relative(root, f));
    assert.deepEqual(offenders, []);
  });
});
