// The `skydeck` program (dist/cli.js): a small entry that loads none of the CLI. For a verb the
// fast path takes (cliRequest.ts FAST_VERBS) with a connection holder up, it hands the whole
// run — argv, cwd, the environment, umask — to a warm worker of the holder and relays its
// output, exit code and Ctrl-C; the worker has the bundle compiled and the schema validator,
// sql.js and the agent's file hash ready, which is most of a fresh CLI's first second. Anything
// short of "the worker started the run" (no holder, a refused directory, another build, no
// worker) runs the full CLI (dist/cli-main.js) in this process, as before.
import * as net from 'node:net';
import * as path from 'node:path';
import { encodeFrame, FrameDecoder, type Frame } from '../core/transport/holder/frames';
import { checkedSocketPath, holderDir } from '../core/transport/holder/socketDir';
import { buildId, cliRequestOf, FAST_VERBS } from '../core/transport/holder/cliRequest';
import { trace } from '../core/util/trace';

const FULL = path.join(__dirname, 'cli-main.js');
const verbose = process.env.SKYDECK_VERBOSE === '1';

function runFull(why?: string): void {
  if (why && verbose) process.stderr.write(`[skydeck] fast path not used: ${why}\n`);
  // The full CLI reads its own path from argv[1] (the holder, the managed-jobs bundle).
  process.argv[1] = FULL;
  (require(FULL) as { cliMain(): void }).cliMain();
}

/** The socket to use, or why the full CLI runs instead. */
function fastSocket(argv: string[]): string | { why: string } {
  if (!FAST_VERBS.has(argv[0] ?? '')) return { why: `${argv[0] ?? 'no verb'} is not on the fast path` };
  if (argv.includes('--help') || argv.includes('-h')) return { why: 'help' };
  if (process.platform === 'win32' || process.env.SKYDECK_NO_HOLDER === '1') return { why: 'holder off' };
  try {
    return checkedSocketPath(holderDir());
  } catch (e) {
    return { why: (e as Error).message };
  }
}

function main(): void {
  trace('thin: main');
  const argv = process.argv.slice(2);
  const sockPath = fastSocket(argv);
  if (typeof sockPath !== 'string') return runFull(sockPath.why);
  let request: Buffer;
  try {
    request = encodeFrame(cliRequestOf('cli', argv, buildId(FULL)));
  } catch (e) {
    // An environment too large for one frame, a cwd that is gone, a missing bundle.
    return runFull((e as Error).message);
  }
  relay(sockPath, request);
}

/** Talks to the holder and then its worker; exits with the run's code. */
function relay(sockPath: string, request: Buffer): void {
  const sock = net.connect(sockPath);
  const decoder = new FrameDecoder();
  let stage: 'asking' | 'running' | 'over' = 'asking';
  let seenOut = false;
  const fallBack = (why: string): void => {
    if (stage !== 'asking') return;
    stage = 'over';
    sock.destroy();
    runFull(why);
  };
  const onInt = (): void => {
    // Once: a second Ctrl-C ends this process at once, as it would the full CLI after it detached.
    process.removeListener('SIGINT', onInt);
    if (stage === 'running' && !sock.destroyed) sock.write(encodeFrame({ t: 'sig' }));
    else process.kill(process.pid, 'SIGINT');
  };
  sock.on('connect', () => { trace('thin: connected to the holder'); sock.write(request); });
  sock.on('error', () => undefined);
  sock.on('data', (chunk: Buffer) => {
    let frames: Frame[];
    try { frames = decoder.push(chunk); } catch { sock.destroy(); return; }
    for (const f of frames) {
      if (stage === 'asking') {
        if (f.t === 'started') {
          stage = 'running';
          trace('thin: run started');
          process.on('SIGINT', onInt);
          if (verbose) process.stderr.write(`[skydeck] run by the connection holder's worker (pid ${Number(f.pid)})\n`);
        }
        else return fallBack(f.t === 'fallback' ? String(f.why) : `unexpected ${f.t} frame`);
      } else if (stage === 'running') {
        if (f.t === 'out' && !seenOut) { seenOut = true; trace('thin: first output'); }
        if (f.t === 'out' || f.t === 'err') {
          const out = f.t === 'out' ? process.stdout : process.stderr;
          // A slow reader of our stdout pauses the worker, nothing piles up here.
          if (!out.write(Buffer.from(String(f.d), 'base64'))) { sock.pause(); out.once('drain', () => sock.resume()); }
        } else if (f.t === 'exit') {
          stage = 'over';
          sock.destroy();
          process.exitCode = typeof f.code === 'number' ? f.code : 1;
          process.removeListener('SIGINT', onInt);
        } else if (f.t === 'rerun') {
          // Stopped before submitting anything because it must ask on this terminal.
          stage = 'asking';
          process.removeListener('SIGINT', onInt);
          return fallBack('the run needs this terminal');
        }
      }
    }
  });
  sock.on('close', () => {
    if (stage === 'asking') return fallBack('the holder closed the connection before the run started');
    if (stage === 'running') {
      stage = 'over';
      process.removeListener('SIGINT', onInt);
      // Never rerun here: the job may have been submitted already.
      process.stderr.write('skydeck: the connection holder\'s worker went away during the run; the job may or may not have been submitted (see "skydeck queue").\n');
      process.exitCode = 1;
    }
  });
}

main();
