import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));

function walk(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? walk(path.join(dir, e.name)) : [path.join(dir, e.name)],
  );
}

describe('extension manifest', () => {
  it('targets VS Code 1.100 with matching types', () => {
    assert.equal(pkg.name, 'skydeck');
    assert.equal(pkg.displayName, 'Skydeck');
    assert.equal(pkg.engines.vscode, '^1.100.0');
    assert.equal(pkg.devDependencies['@types/vscode'], '~1.100.0');
  });

  it('contributes the Skydeck container, the Clusters view and its welcome content', () => {
    const c = pkg.contributes;
    assert.deepEqual(c.viewsContainers.activitybar.map((v: { id: string }) => v.id), ['skydeck']);
    assert.equal(c.views.skydeck[0].id, 'skydeck.clusters');
    assert.equal(c.views.skydeck[0].name, 'Clusters');
    assert.ok(fs.existsSync(path.join(ROOT, c.viewsContainers.activitybar[0].icon)));
    assert.match(c.viewsWelcome[0].contents, /command:skydeck\.launchTask/);
  });

  it('contributes every command DESIGN.md names, and each has a handler', () => {
    const titles = pkg.contributes.commands.map((c: { title: string }) => c.title);
    for (const t of ['Launch Task', 'Exec Task', 'Show Logs', 'Cancel Job', 'Stop Cluster', 'Start Cluster',
      'Refresh', 'Check Clouds', 'Find Leaked Instances', 'Open SSH Terminal']) {
      assert.ok(titles.includes(t), `missing command "${t}"`);
    }
    assert.ok(titles.some((t: string) => t.startsWith('Down')));
    // A handler is either a Command file (`id: 'skydeck.x'`) or a "not available yet" entry.
    const sources = walk(path.join(ROOT, 'src/ui/commands')).map((f) => fs.readFileSync(f, 'utf8')).join('\n');
    for (const { command } of pkg.contributes.commands) {
      assert.ok(sources.includes(`'${command}'`), `no handler for ${command}`);
    }
  });

  it('has a walkthrough whose steps name real media files and real commands', () => {
    const [w] = pkg.contributes.walkthroughs;
    assert.deepEqual(w.steps.map((s: { id: string }) => s.id), ['local', 'clouds', 'launch', 'logs']);
    const ids = new Set(pkg.contributes.commands.map((c: { command: string }) => c.command));
    for (const step of w.steps) {
      assert.ok(fs.existsSync(path.join(ROOT, step.media.markdown)), `${step.id}: no ${step.media.markdown}`);
      for (const [, cmd] of (step.description as string).matchAll(/\(command:([\w.]+)\)/g)) {
        assert.ok(ids.has(cmd) || cmd === 'skydeck.clusters.focus', `${step.id}: unknown command ${cmd}`);
      }
      for (const ev of step.completionEvents) assert.match(ev, /^on(Command|View):skydeck\./);
    }
  });

  it('cluster menus match the tree\'s contextValue tokens (cluster:<status>:<local|remote>)', () => {
    const when = pkg.contributes.menus['view/item/context'].map((m: { command: string; when: string }) => [m.command, m.when]);
    const matches = (cmd: string, value: string) =>
      when.some(([c, w]: [string, string]) => c === cmd && new RegExp(/viewItem =~ \/(.+)\/$/.exec(w)![1]).test(value));
    assert.ok(matches('skydeck.openTerminal', 'cluster:up:local') && matches('skydeck.openTerminal', 'cluster:up:remote'));
    assert.ok(matches('skydeck.copySshCommand', 'cluster:up:remote') && !matches('skydeck.copySshCommand', 'cluster:up:local'));
    assert.ok(matches('skydeck.connectRemoteSsh', 'cluster:up:remote') && !matches('skydeck.connectRemoteSsh', 'cluster:stopped:remote'));
    assert.ok(matches('skydeck.execTask', 'cluster:up:local') && matches('skydeck.downCluster', 'cluster:init:remote'));
  });

  it('validates task YAMLs against the generated schema', () => {
    const v = pkg.contributes.yamlValidation;
    assert.deepEqual(v.map((e: { fileMatch: string }) => e.fileMatch).sort(), ['*.sky.yaml', 'sky*.yaml', 'task*.yaml']);
    for (const e of v) {
      const schema = JSON.parse(fs.readFileSync(path.join(ROOT, e.url), 'utf8'));
      assert.equal(schema.$schema, 'http://json-schema.org/draft-07/schema#');
    }
  });
});
