// Messages between a log panel's host side (extension) and its page (webview). Both sides import
// this file, so it imports nothing: no vscode, no Node, no DOM.

/** The webview panel type; the serializer is registered under it. */
export const LOGS_VIEW_TYPE = 'skydeck.logs';

export interface JobKey {
  cluster: string;
  jobId: number;
  name?: string;
  /** A multi-node job's rank (each rank's log has its own panel); absent/0: the job log. */
  rank?: number;
  /** A managed job: `jobId` is its managed job id, and its log spans every cluster it ran on. */
  managed?: boolean;
}

/** What the status line shows. Times are epoch seconds, as the agent reports them. */
export interface JobStatusView {
  status: string;
  exitCode: number | null;
  reason: string | null;
  startedAt: number | null;
  endedAt: number | null;
  /** Following ended because the job did: the log is complete. */
  final: boolean;
  /** The job's node count; above 1 the page offers a rank selector. */
  ranks?: number;
}

/** The follow's health, drawn as the banner above the output. */
export type ConnectionView =
  | { state: 'live' }
  | { state: 'reconnecting'; message: string }
  | { state: 'ended' }
  | { state: 'stopped'; message: string };

/**
 * Host → page. Output travels base64-encoded: a third larger than the bytes but a single string
 * that every postMessage path (VS Code's IPC, structured clone, JSON) carries cheaply; a number
 * array costs about 3.6 bytes of JSON per byte (see bench/ui-logs.ts for the figures).
 */
export type HostMessage =
  /** Clear the page; appends of `session` follow, starting at byte `from` of the log. */
  | { type: 'reset'; session: number; key: JobKey; from: number; skipped: number }
  | { type: 'append'; session: number; offset: number; data: string }
  | { type: 'status'; status: JobStatusView }
  | { type: 'connection'; connection: ConnectionView }
  /** Liveness probe; the page answers `pong` from its message handler. */
  | { type: 'ping'; id: number }
  /** The job's workdir on the node: traceback paths inside it link to the local file (traceback.ts). */
  | { type: 'sourceRoot'; nodeDir: string };

/** Page → host. */
export type PageMessage =
  /**
   * The page is loaded (again): the host sends reset, then the backlog, then live output.
   * `lines`: how many lines the terminal keeps (its scrollback); a longer backlog is replayed
   * from where its last `lines` lines begin, since older ones would scroll out anyway.
   */
  | { type: 'ready'; lines?: number }
  /**
   * Bytes up to `offset` are written to the terminal; the host's send window moves on.
   * `following`: the view is at the end, following output (not paused or scrolled back).
   */
  | { type: 'ack'; session: number; offset: number; following?: boolean }
  | { type: 'pong'; id: number }
  | { type: 'save' }
  | { type: 'retry' }
  /** Open (or reveal) the panel of another rank of this job. */
  | { type: 'openRank'; rank: number }
  /** The user clicked a hyperlink (OSC 8) in the output: the host asks before opening it. */
  | { type: 'openLink'; url: string }
  /** The user clicked a traceback's `File "<path>", line N`: the host maps and checks the path again. */
  | { type: 'openSource'; path: string; line: number };

/** What the page keeps with vscode.setState, and what the serializer gets back after a reload. */
export interface PanelState {
  v: 1;
  cluster: string;
  jobId: number;
  name?: string;
  offset: number;
  rank?: number;
  managed?: boolean;
}

const isInt = (x: unknown): x is number => typeof x === 'number' && Number.isSafeInteger(x) && x >= 0;

/**
 * Links in job output are the job's choice: only plain web addresses are ever offered
 * (never command:, file:, vscode: or javascript: URIs), and never longer than a sane URL.
 */
export function isWebUrl(text: string): boolean {
  if (text.length > 2048) return false;
  try {
    const u = new URL(text);
    return (u.protocol === 'https:' || u.protocol === 'http:') && !!u.hostname;
  } catch {
    return false;
  }
}

/** The page is untrusted input as far as the host goes: check each message's shape. */
export function isPageMessage(m: unknown): m is PageMessage {
  if (typeof m !== 'object' || m === null) return false;
  const o = m as Record<string, unknown>;
  switch (o.type) {
    case 'ready':
      return o.lines === undefined || (isInt(o.lines) && o.lines > 0);
    case 'save':
    case 'retry':
      return true;
    case 'ack':
      return isInt(o.session) && isInt(o.offset) && (o.following === undefined || typeof o.following === 'boolean');
    case 'pong':
      return isInt(o.id);
    case 'openRank':
      return isInt(o.rank) && o.rank < 4096;
    case 'openLink':
      return typeof o.url === 'string' && isWebUrl(o.url);
    case 'openSource':
      return typeof o.path === 'string' && o.path.startsWith('/') && o.path.length <= 4096 && isInt(o.line) && o.line >= 1 && o.line < 1e9;
    default:
      return false;
  }
}

export function parsePanelState(s: unknown): PanelState | undefined {
  if (typeof s !== 'object' || s === null) return undefined;
  const o = s as Record<string, unknown>;
  if (o.v !== 1 || typeof o.cluster !== 'string' || !o.cluster || !isInt(o.jobId)) return undefined;
  return {
    v: 1,
    cluster: o.cluster,
    jobId: o.jobId,
    name: typeof o.name === 'string' && o.name ? o.name : undefined,
    offset: isInt(o.offset) ? o.offset : 0,
    ...(isInt(o.rank) && o.rank > 0 ? { rank: o.rank } : {}),
    ...(o.managed === true ? { managed: true } : {}),
  };
}

/** Panel title: `cluster #id name`, the job as the tree shows it under its cluster (and the rank, for one rank's log). */
export function panelTitle(key: JobKey): string {
  if (key.managed) return `managed job ${key.jobId}${key.name ? ` ${key.name}` : ''}`;
  return `${key.cluster} #${key.jobId}${key.name ? ` ${key.name}` : ''}${key.rank ? ` · rank ${key.rank}` : ''}`;
}

export function keyId(key: JobKey): string {
  return `${key.managed ? 'managed' : key.cluster}\u0000${key.jobId}\u0000${key.rank ?? 0}\u0000${key.managed ? 1 : 0}`;
}
