// What `npm run package` puts in the .vsix (vsce ls: the same file selection, without building):
// every file the manifest names and the bundle loads at run time, and none of the sources.
// (CI also packages, installs the .vsix and runs the VS Code suites on it: run-all.mjs.)
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { skipOrFailWithout } from '../../support/ci';

const ROOT = path.resolve(__dirname, '../../..');
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));

/** Files below `dir` (repo-relative), without Python caches, as the build copies them. */
function filesUnder(dir: string): string[] {
  return fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = `${dir}/${e.name}`;
    if (e.name === '__pycache__' || e.name.endsWith('.pyc')) return [];
    return e.isDirectory() ? filesUnder(rel) : [rel];
  });
}

/** Paths the manifest itself refers to: entry points, icons, walkthrough media, schemas. */
function manifestFiles(): string[] {
  const c = pkg.contributes;
  const out = [pkg.main, ...Object.values(pkg.bin as Record<string, string>)];
  for (const v of c.viewsContainers.activitybar) out.push(v.icon);
  for (const v of Object.values(c.views as Record<string, { icon?: string }[]>).flat()) if (v.icon) out.push(v.icon);
  for (const w of c.walkthroughs) for (const s of w.steps) out.push(s.media.markdown ?? s.media.image);
  for (const y of c.yamlValidation) out.push(y.url);
  return [...new Set(out.map((p: string) => path.posix.normalize(p)))];
}

describe('packaging: the .vsix', function () {
  this.timeout(120_000);

  it('issue 12.13: README.md has no relative link (vsce refuses them without a repository, and there is none)', () => {
    // vsce's rule: a markdown link that is not absolute (scheme://), an anchor (#) or mailto:.
    const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    const relative = [...readme.matchAll(/!?\[[^\]]*\]\(([^)\s]+)[^)]*\)/g)].map((m) => m[1]).filter((l) => !/^\w+:\/\//.test(l) && !l.startsWith('#') && !/^mailto:/i.test(l));
    assert.deepEqual(relative, []);
    assert.equal(pkg.repository, undefined, 'no made-up repository URL');
    assert.match(pkg.scripts.package, /--allow-missing-repository/, 'vsce would otherwise stop at a y/N prompt in a terminal');
  });

  it('issue 12.13: holds what the manifest names and the bundle loads, the licence, and no sources', function () {
    if (!fs.existsSync(path.join(ROOT, 'dist/extension.js'))) return skipOrFailWithout(this, 'the .vsix content test', 'dist/ is not built (npm run build)');
    const listed = execFileSync(path.join(ROOT, 'node_modules/.bin/vsce'), ['ls', '--no-dependencies'], { cwd: ROOT, encoding: 'utf8' })
      .split('\n').map((l) => l.trim()).filter(Boolean);
    const files = new Set(listed);
    const want = [
      'package.json', 'README.md', 'LICENSE.md',
      ...manifestFiles(),
      // Loaded at run time by the bundle: the core chunk, one per cloud SDK, sql.js's WASM, the
      // log panel page, the agent uploaded to every node, the example the walkthrough opens.
      'dist/extension-core.js', 'dist/clouds/aws.js', 'dist/clouds/gcp.js', 'dist/clouds/azure.js',
      'dist/sql-wasm.wasm', 'dist/webview/logs.js', 'dist/webview/logs.css',
      ...filesUnder('agent').map((f) => `dist/${f}`),
      'examples/hello.sky.yaml',
    ];
    assert.deepEqual(want.filter((f) => !files.has(f)), [], 'missing from the package');
    const unwanted = listed.filter((f) => /^(src|test|scripts|bench|webview-ui|node_modules|out|agent|\.ci|\.vscode|test-output)\//.test(f) || /\.(map|vsix|ts)$/.test(f) || f === 'tsconfig.json' || f === 'esbuild.mjs');
    assert.deepEqual(unwanted, [], 'sources or build leftovers in the package');
  });
});
