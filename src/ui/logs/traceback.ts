// Python traceback lines in job output (`  File "/home/u/sky_workdir/train.py", line 12, in main`)
// and where they point on this machine. Shared by the page (which draws the link) and the host
// (which opens the file), so it imports nothing: no vscode, no Node, no DOM.

/** Longer lines are not scanned (a minified blob or binary noise is no traceback). */
const MAX_LINE = 16_384;
const MAX_PATH = 4096;
// Python prints the path between double quotes as it is; a path holding a quote or a newline
// then does not look like this and stays plain text.
const REF = /File "([^"\n\r\u0000]{1,4096})", line (\d{1,9})/g;

/** Where a job's workdir is on its node and here (the folder its task synced). */
export interface WorkdirMap {
  nodeDir: string;
  localDir: string;
}

/** One `File "…", line N` in a line of output; start/end are character offsets of that text. */
export interface TracebackRef {
  path: string;
  line: number;
  start: number;
  end: number;
}

export function tracebackRefs(text: string): TracebackRef[] {
  if (text.length > MAX_LINE || !text.includes('File "')) return [];
  const out: TracebackRef[] = [];
  for (const m of text.matchAll(REF)) {
    const line = Number(m[2]);
    if (line >= 1) out.push({ path: m[1], line, start: m.index!, end: m.index! + m[0].length });
  }
  return out;
}

/**
 * The path of `nodePath` relative to the node's workdir, as '/'-separated segments, when it lies
 * inside it; undefined otherwise. Nothing is normalised: a `.`, `..` or empty segment, a
 * backslash or a relative path refuses the link rather than guess where it points.
 */
export function relativeToWorkdir(nodePath: string, nodeDir: string): string[] | undefined {
  if (!nodePath.startsWith('/') || nodePath.length > MAX_PATH || /[\\\u0000-\u001f]/.test(nodePath)) return undefined;
  const root = nodeDir.replace(/\/+$/, '');
  if (!root.startsWith('/') || !nodePath.startsWith(`${root}/`)) return undefined;
  const rest = nodePath.slice(root.length + 1).split('/');
  if (rest.some((s) => s === '' || s === '.' || s === '..')) return undefined;
  return rest;
}

/**
 * The local file a traceback path names: the same relative path under the local workdir the task
 * synced (`sep`: this machine's separator). The host checks again, on the real file system
 * (links resolved), that the result is inside the workdir before opening it.
 */
export function localSourcePath(nodePath: string, nodeDir: string, localDir: string, sep: '/' | '\\' = '/'): string | undefined {
  const rel = relativeToWorkdir(nodePath, nodeDir);
  if (!rel || !localDir) return undefined;
  // A segment that would mean something else here (a drive, a separator of this system) is refused.
  if (rel.some((s) => s.includes(sep) || (sep === '\\' && /[:*?"<>|]/.test(s)))) return undefined;
  return `${localDir.replace(/[\\/]+$/, '')}${sep}${rel.join(sep)}`;
}

/** The refs of a line of output the page draws as links: those inside the node's workdir. */
export function linkableRefs(text: string, nodeDir: string): TracebackRef[] {
  return tracebackRefs(text).filter((r) => relativeToWorkdir(r.path, nodeDir) !== undefined);
}
