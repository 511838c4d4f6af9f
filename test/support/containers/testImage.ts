// The test image of the container tests: no registry is reachable, so it is a root filesystem
// of this machine's own bash, python3 and coreutils (rootfs.sh), imported into podman once and
// cached by the script's hash (tarball under the test cache dir, image tag by hash).
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { skipOrFailWithout } from '../ci';

const SCRIPT = path.join(__dirname, 'rootfs.sh');

/** Why podman cannot be used here, or undefined when it can. */
export function podmanProblem(): string | undefined {
  const v = spawnSync('podman', ['info', '--format', '{{.Store.GraphDriverName}}'], { encoding: 'utf8' });
  if (v.error) return `podman is not installed (${v.error.message}); apt-get install -y podman`;
  if (v.status !== 0) return `podman info failed: ${v.stderr.trim()}`;
  return undefined;
}

function cacheDir(): string {
  const d = path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache'), 'skydeck-test', 'containers');
  fs.mkdirSync(d, { recursive: true });
  return d;
}

/** `localhost/skydeck-test:<hash>[-nopy]`, built and imported if the node does not have it. */
export function testImage(variant: 'python' | 'no-python' = 'python'): string {
  const { tag, tar } = testImageTarball(variant);
  if (spawnSync('podman', ['image', 'exists', tag]).status === 0) return tag;
  execFileSync('podman', ['import', tar, tag], { stdio: ['ignore', 'ignore', 'inherit'] });
  return tag;
}

/** The image's tag and its root filesystem tarball (built once, cached by the script's hash). */
export function testImageTarball(variant: 'python' | 'no-python' = 'python'): { tag: string; tar: string } {
  const hash = createHash('sha256').update(fs.readFileSync(SCRIPT)).update(variant).digest('hex').slice(0, 12);
  const tag = `localhost/skydeck-test:${hash}${variant === 'no-python' ? '-nopy' : ''}`;
  const tar = path.join(cacheDir(), `rootfs-${hash}-${variant}.tar`);
  if (!fs.existsSync(tar)) {
    execFileSync('bash', [SCRIPT, `${tar}.tmp`, ...(variant === 'no-python' ? ['--no-python'] : [])], { stdio: ['ignore', 'ignore', 'inherit'] });
    fs.renameSync(`${tar}.tmp`, tar);
  }
  return { tag, tar };
}

/** In a `before`: the image, or a loud skip (a failure under CI) when podman cannot run. */
export function requireTestImage(ctx: Mocha.Context, variant: 'python' | 'no-python' = 'python'): string {
  if (process.platform !== 'linux') skipOrFailWithout(ctx, 'container tests', 'they need Linux with podman');
  const problem = podmanProblem();
  if (problem) skipOrFailWithout(ctx, 'container tests', problem);
  return testImage(variant);
}

/** Containers of one cluster uid (by the label every Skydeck container carries). */
export function containersOf(uid: string): string[] {
  const out = execFileSync('podman', ['ps', '-a', '--filter', `label=skydeck-cluster-uid=${uid}`, '--format', '{{.Names}}'], { encoding: 'utf8' });
  return out.split('\n').filter(Boolean);
}

/** Command lines of the processes in a container (via the runtime's own `top`). */
export function processesIn(name: string): string[] {
  const out = execFileSync('podman', ['top', name, 'args'], { encoding: 'utf8' });
  return out.split('\n').slice(1).filter(Boolean);
}
