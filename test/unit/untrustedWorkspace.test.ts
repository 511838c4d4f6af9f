import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { MACHINE_SETTINGS, TRUSTED_ONLY_COMMANDS } from '../../src/ui/trust';

const ROOT = path.resolve(__dirname, '../..');
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
const props: Record<string, { scope?: string }> = pkg.contributes.configuration.properties;

function walk(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? walk(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : [],
  );
}

describe('issue 13.5: what a workspace may set or run', () => {
  it('issue 13.5: every setting declares its scope; machine-level ones are machine-scoped and restricted', () => {
    for (const [key, p] of Object.entries(props)) assert.ok(['machine', 'window', 'application'].includes(p.scope ?? ''), `${key} has scope ${p.scope}`);
    for (const k of MACHINE_SETTINGS) {
      assert.equal(props[`skydeck.${k}`]?.scope, 'machine', k);
      assert.ok(pkg.capabilities.untrustedWorkspaces.restrictedConfigurations.includes(`skydeck.${k}`), k);
    }
    assert.equal(props['skydeck.sshPools'].scope, 'machine');
  });

  it('issue 13.5: untrusted workspaces are declared "limited" and every launching/acting command needs trust', () => {
    assert.equal(pkg.capabilities.untrustedWorkspaces.supported, 'limited');
    const commands: { command: string; enablement?: string }[] = pkg.contributes.commands;
    for (const id of TRUSTED_ONLY_COMMANDS) {
      const c = commands.find((x) => x.command === id);
      assert.ok(c, `${id} is contributed`);
      assert.match(c!.enablement ?? '', /\bisWorkspaceTrusted\b/, id);
    }
    for (const id of ['skydeck.launchTask', 'skydeck.execTask', 'skydeck.openTerminal', 'skydeck.downCluster']) assert.ok(TRUSTED_ONLY_COMMANDS.has(id), id);
  });

  it('issue 13.5: machine-level settings are never read with get() (which would take a workspace value)', () => {
    const offenders: string[] = [];
    for (const f of walk(path.join(ROOT, 'src'))) {
      const text = fs.readFileSync(f, 'utf8');
      for (const k of MACHINE_SETTINGS) {
        const re = new RegExp(`\\.get(<[^>]*>)?\\(\\s*['"](skydeck\\.)?${k.replace('.', '\\.')}['"]`);
        if (re.test(text)) offenders.push(`${path.relative(ROOT, f)}: ${k}`);
      }
    }
    assert.deepEqual(offenders, []);
    assert.match(fs.readFileSync(path.join(ROOT, 'src/ui/settings.ts'), 'utf8'), /inspect<T>\(key\)\?\.globalValue/);
  });
});
