// Which node runs the controller's bundle: the node's own `node` if it is 20 or newer, else
// this machine's binary when the node is the same OS and CPU, else an error naming the fix.
import * as os from 'node:os';

export interface NodeProbe {
  /** `uname -sm` on the node, e.g. "Linux x86_64". */
  uname: string;
  /** `command -v node` there, if any, and what `node --version` said. */
  nodePath?: string;
  nodeVersion?: string;
  /** This machine's binary was uploaded there before (same version and platform). */
  uploaded: boolean;
}

export type NodeChoice = { use: 'node'; path: string } | { use: 'uploaded' } | { use: 'upload' } | { use: 'none'; why: string };

export const MIN_NODE_MAJOR = 20;

/** `uname -sm` as this machine would print it, from Node's own names. */
export function localUname(platform: string = process.platform, arch: string = process.arch): string {
  const sys: Record<string, string> = { linux: 'Linux', darwin: 'Darwin', freebsd: 'FreeBSD' };
  const cpu: Record<string, string> = { x64: 'x86_64', arm64: platform === 'darwin' ? 'arm64' : 'aarch64', arm: 'armv7l', ppc64: 'ppc64le', s390x: 's390x' };
  return `${sys[platform] ?? os.type()} ${cpu[arch] ?? arch}`;
}

export function nodeMajor(version: string | undefined): number | undefined {
  const m = /^v?(\d+)\./.exec(version?.trim() ?? '');
  return m ? Number(m[1]) : undefined;
}

/** `force: 'upload'` ($SKYDECK_JOBS_CONTROLLER_NODE=upload) skips the node's own node. */
export function chooseNode(p: NodeProbe, here = { uname: localUname(), version: process.version }, force?: string): NodeChoice {
  const major = nodeMajor(p.nodeVersion);
  if (force !== 'upload' && p.nodePath && major !== undefined && major >= MIN_NODE_MAJOR) return { use: 'node', path: p.nodePath };
  if (p.uname.trim() === here.uname) return p.uploaded ? { use: 'uploaded' } : { use: 'upload' };
  const found = p.nodePath ? `node ${p.nodeVersion?.trim() || '(its version unknown)'} at ${p.nodePath}` : 'no node';
  return {
    use: 'none',
    why: `the controller node (${p.uname.trim() || 'unknown system'}) has ${found}; it needs Node.js ${MIN_NODE_MAJOR} or newer on its PATH ` +
      `(this machine's node ${here.version} is built for ${here.uname} and cannot run there): install Node.js ${MIN_NODE_MAJOR}+ on it and retry`,
  };
}
