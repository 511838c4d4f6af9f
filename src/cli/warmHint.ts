// A full CLI run of a fast-path verb (no holder yet, or the holder's worker declined) tells the
// holder what it ran once it is over (cliRequest.ts `warm`), so the holder's spare worker has
// that cluster's agent channel open when the user's next command comes.
import * as net from 'node:net';
import { encodeFrame } from '../core/transport/holder/frames';
import { checkedSocketPath, holderDir } from '../core/transport/holder/socketDir';
import { buildId, cliRequestOf, FAST_VERBS } from '../core/transport/holder/cliRequest';

/** Set when this process started a holder: its socket may not be there yet when the run ends. */
export const holderStarted = { value: false };
/** How long the end of a run that started a holder waits for its socket to send the hint. */
const STARTING_MS = 3000;

/** The socket, or undefined (none; or not a safe one). */
async function socketOf(): Promise<string | undefined> {
  const until = Date.now() + (holderStarted.value ? STARTING_MS : 0);
  for (;;) {
    try {
      return checkedSocketPath(holderDir());
    } catch {
      if (Date.now() >= until) return undefined;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

/** The hint, taken now (the run's own argv, directory and environment); undefined: none to send. */
export function warmHint(argv: string[], bundle: string): (() => Promise<void>) | undefined {
  if (!FAST_VERBS.has(argv[0] ?? '') || process.platform === 'win32' || process.env.SKYDECK_NO_HOLDER === '1') return undefined;
  let frame: Buffer;
  try {
    frame = encodeFrame(cliRequestOf('warm', argv, buildId(bundle)));
  } catch {
    return undefined; // an environment too large for a frame: no hint
  }
  return async () => {
    const sockPath = await socketOf();
    if (sockPath) await tell(sockPath, frame);
  };
}

function tell(sockPath: string, frame: Buffer): Promise<void> {
  return new Promise<void>((resolve) => {
    const s = net.connect(sockPath);
    const done = (): void => { clearTimeout(timer); s.destroy(); resolve(); };
    // The hint is worth little: the CLI never waits long to exit for it.
    const timer = setTimeout(done, 500);
    s.on('connect', () => s.end(frame));
    s.on('close', done);
    s.on('error', done);
  });
}
