// Puts the controller's runtime on its node: the CLI bundle in <root>/bundles/<hash>/ and, if
// the node has no suitable node, this machine's binary in <root>/node/<version>-<platform>/.
// Each is uploaded into a fresh .part directory and renamed into place, so a killed upload never
// looks complete and two racing uploads leave one copy. Paths reach the shell only as "$1".. args.
import { randomBytes } from 'node:crypto';
import * as path from 'node:path';
import type { Transport } from '../../transport';
import type { CliBundle } from './bundle';
import { chooseNode, MIN_NODE_MAJOR, type NodeProbe } from './nodeChoice';

export interface ControllerRuntime {
  /** The node program and the CLI entry, absolute paths on the node. */
  node: string;
  entry: string;
  /** $SKYDECK_CONTROLLER_HOME on the node: its store, lease and controller.log. */
  home: string;
  root: string;
  /** The env pointing at pool access copied there earlier (--copy-credentials), else empty. */
  accessEnv: Record<string, string>;
}

const PROBE = `root="\${1:-$HOME/.skydeck/jobs-controller}"
printf 'root=%s\\n' "$root"
printf 'uname=%s\\n' "$(uname -sm)"
if n=$(command -v node 2>/dev/null); then printf 'node=%s\\nnodever=%s\\n' "$n" "$("$n" --version 2>/dev/null | head -n 1)"; fi
[ -f "$root/bundles/$2/.complete" ] && echo bundle=yes
[ -x "$root/node/$3/node" ] && echo uploaded=yes
[ -f "$root/access/ssh_pools.yaml" ] && echo access_pools=yes
[ -f "$root/access/known_hosts" ] && echo access_known=yes
exit 0`;

// Moves a finished .part directory into place; one already there (a racing upload) wins.
const PLACE = `set -e
touch "$1/.complete"
mv -T "$1" "$2" 2>/dev/null || rm -rf "$1"
test -f "$2/.complete"`;

function field(out: string, key: string): string | undefined {
  const line = out.split('\n').find((l) => l.startsWith(`${key}=`));
  return line?.slice(key.length + 1);
}

/** The tag of this machine's node binary on the node: version and platform. */
export function nodeTag(): string {
  return `${process.version}-${process.platform}-${process.arch}`;
}

async function sh(t: Transport, script: string, args: string[], what: string): Promise<string> {
  const r = await t.exec(['/bin/sh', '-c', script, 'sh', ...args]);
  if (r.code !== 0) throw new Error(`${what} on ${t.description} failed: ${r.stderr.toString().trim() || `exit ${String(r.code)}`}`);
  return r.stdout.toString();
}

/**
 * Makes sure the node holds `bundle` and a node to run it; returns the paths. `root` is the
 * controller's directory there ('' = ~/.skydeck/jobs-controller of the node's user).
 */
export async function ensureRuntime(t: Transport, root: string, bundle: CliBundle, progress: (m: string) => void, o: { noUpload?: boolean } = {}): Promise<ControllerRuntime> {
  const out = await sh(t, PROBE, [root, bundle.hash, nodeTag()], 'looking at the controller node');
  const probe: NodeProbe = { uname: field(out, 'uname') ?? '', nodePath: field(out, 'node'), nodeVersion: field(out, 'nodever'), uploaded: field(out, 'uploaded') === 'yes' };
  const dir = field(out, 'root');
  if (!dir || !dir.startsWith('/')) throw new Error(`the controller node ${t.description} did not name its directory (got ${JSON.stringify(dir)})`);
  const choice = chooseNode(probe, undefined, process.env.SKYDECK_JOBS_CONTROLLER_NODE);
  if (choice.use === 'none') throw new Error(choice.why);
  // The editor runs inside VS Code's own runtime, which cannot be copied to another machine.
  if (choice.use === 'upload' && o.noUpload) {
    throw new Error(`the controller node ${t.description} has no Node.js ${MIN_NODE_MAJOR}+ on its PATH: install it there, or run "skydeck jobs launch" once from a terminal (the CLI uploads its own node)`);
  }
  const bundleDir = `${dir}/bundles/${bundle.hash}`;
  if (field(out, 'bundle') !== 'yes') {
    progress(`Uploading Skydeck's CLI bundle ${bundle.hash} to the controller (${t.description})`);
    const part = `${bundleDir}.part-${randomBytes(4).toString('hex')}`;
    for (const p of bundle.parts) await t.upload(path.join(bundle.dir, p), `${part}/${p}`);
    await sh(t, PLACE, [part, bundleDir], 'placing the CLI bundle');
  }
  let node = choice.use === 'node' ? choice.path : `${dir}/node/${nodeTag()}/node`;
  if (choice.use === 'upload') {
    progress(`Uploading this machine's node ${process.version} to the controller (${t.description}): it has no Node.js 20+`);
    const final = `${dir}/node/${nodeTag()}`;
    const part = `${final}.part-${randomBytes(4).toString('hex')}`;
    await t.upload(process.execPath, `${part}/node`);
    await sh(t, PLACE, [part, final], 'placing node');
    node = `${final}/node`;
  }
  // Access copied once (--copy-credentials) is used by every later call too, as by the controller.
  const accessEnv: Record<string, string> = {};
  if (field(out, 'access_pools') === 'yes') accessEnv.SKYDECK_SSH_POOLS = `${dir}/access/ssh_pools.yaml`;
  if (field(out, 'access_known') === 'yes') accessEnv.SKYDECK_KNOWN_HOSTS = `${dir}/access/known_hosts`;
  return { node, entry: `${bundleDir}/${bundle.entry}`, home: `${dir}/home`, root: dir, accessEnv };
}
