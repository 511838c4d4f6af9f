// The extension as a user gets it: `npm run package` builds the .vsix, and code-server installs
// it (--install-extension) into a scratch extensions dir. The VS Code suites then load Skydeck
// from that installed copy (SKYDECK_TEST_EXTENSION), outside the repo and without its
// node_modules, so a file missing from the package fails them.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findCodeServer, makeScratchDir } from './codeServer.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

function run(cmd, args, opts = {}) {
  return new Promise((res, rej) => {
    // Output to stderr: the caller's stdout carries only test results.
    const child = spawn(cmd, args, { cwd: ROOT, stdio: ['ignore', 2, 2], ...opts });
    child.on('error', (e) => rej(new Error(`${cmd}: ${e.message}`)));
    child.on('close', (code, signal) => (code === 0 ? res() : rej(new Error(`${cmd} ${args.join(' ')} failed (${signal ?? `exit ${code}`})`))));
  });
}

/** Packages and installs the extension; resolves with {vsix, extensionPath, scratch}. */
export async function packageAndInstall() {
  const scratch = makeScratchDir('skydeck-vsix-');
  const vsix = join(scratch, 'skydeck.vsix');
  await run('npm', ['run', 'package', '--', '--out', vsix]);
  const extensionsDir = join(scratch, 'extensions');
  const xdg = join(scratch, 'xdg');
  for (const d of [extensionsDir, join(xdg, 'config'), join(xdg, 'data'), join(xdg, 'cache')]) mkdirSync(d, { recursive: true });
  await run(findCodeServer(), ['--install-extension', vsix, '--extensions-dir', extensionsDir, '--user-data-dir', join(scratch, 'user-data')], {
    env: { ...process.env, EXTENSIONS_GALLERY: '{}', XDG_CONFIG_HOME: join(xdg, 'config'), XDG_DATA_HOME: join(xdg, 'data'), XDG_CACHE_HOME: join(xdg, 'cache') },
  });
  const { name, publisher } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  const id = `${publisher}.${name}`.toLowerCase();
  const dir = readdirSync(extensionsDir).find((d) => d.toLowerCase().startsWith(`${id}-`));
  if (!dir || !existsSync(join(extensionsDir, dir, 'package.json'))) {
    throw new Error(`code-server installed ${vsix}, but ${extensionsDir} holds no ${id}-<version>/package.json (${readdirSync(extensionsDir).join(', ') || 'empty'})`);
  }
  return { vsix, extensionPath: join(extensionsDir, dir), scratch };
}
