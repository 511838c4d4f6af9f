// Runs find for the workdir listings (treeListing.ts) from one small sh kept beside this
// process. Starting a child from Node forks the whole process: tens of milliseconds once the
// heap is large (after a 500 MB sync: ~40 ms, a fifth of a one-file sync). The sh forks
// itself, which costs nothing. Output goes through a private temp file; the sh answers with
// find's exit code. Any trouble with the sh: find is started directly instead.
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { shellQuote } from '../transport/shellQuote';

interface Runner { child: ChildProcess; dir: string; queue: ((code: number | undefined) => void)[]; buf: string }

let runner: Runner | undefined;
let seq = 0;

function start(): Runner | undefined {
  let dir: string;
  let child: ChildProcess;
  try {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-find-'));
    child = spawn('sh', [], { stdio: ['pipe', 'pipe', 'ignore'] });
  } catch {
    return undefined;
  }
  const r: Runner = { child, dir, queue: [], buf: '' };
  process.once('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
  const fail = () => {
    if (runner === r) runner = undefined;
    for (const q of r.queue.splice(0)) q(undefined);
    fs.rmSync(dir, { recursive: true, force: true });
  };
  child.on('error', fail);
  child.on('close', fail);
  child.stdin!.on('error', fail);
  child.stdout!.setEncoding('utf8');
  child.stdout!.on('data', (d: string) => {
    r.buf += d;
    for (let nl; (nl = r.buf.indexOf('\n')) >= 0;) {
      const line = r.buf.slice(0, nl);
      r.buf = r.buf.slice(nl + 1);
      r.queue.shift()?.(/^\d+$/.test(line) ? Number(line) : undefined);
    }
  });
  // It must not keep this process alive, nor outlive it: its stdin closes when we exit.
  child.unref();
  (child.stdin as unknown as { unref?: () => void }).unref?.();
  (child.stdout as unknown as { unref?: () => void }).unref?.();
  return r;
}

/** find's stdout, or undefined when it failed (non-zero exit, or it could not run). */
export async function runFind(args: string[], cwd: string): Promise<Buffer | undefined> {
  runner ??= start();
  const r = runner;
  if (!r) return direct(args, cwd);
  const out = path.join(r.dir, `out-${++seq}`);
  const code = await new Promise<number | undefined>((resolve) => {
    r.queue.push(resolve);
    r.child.stdin!.write(`(cd ${shellQuote(cwd)} && exec find ${args.map(shellQuote).join(' ')}) > ${shellQuote(out)} 2>/dev/null; echo $?\n`);
  });
  try {
    if (code === undefined) return direct(args, cwd);
    return code === 0 ? fs.readFileSync(out) : undefined;
  } finally {
    fs.rmSync(out, { force: true });
  }
}

function direct(args: string[], cwd: string): Promise<Buffer | undefined> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let child;
    try {
      child = spawn('find', args, { cwd, stdio: ['ignore', 'pipe', 'ignore'] });
    } catch {
      resolve(undefined);
      return;
    }
    child.stdout.on('data', (c: Buffer) => chunks.push(c));
    child.on('error', () => resolve(undefined));
    // Any complaint (an unreadable dir, a file gone mid-walk) means: walk the file system.
    child.on('close', (code) => resolve(code === 0 ? Buffer.concat(chunks) : undefined));
  });
}
