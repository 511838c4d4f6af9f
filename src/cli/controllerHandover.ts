// A controller serving a store runs one CLI bundle; on a controller node each version has its
// own directory (named by content hash). When a jobs command of another bundle finds a live
// controller of an older one, it asks it to hand over: the old controller stops stepping
// (graceful, as a restart after kill -9 is safe anyway), releases its lease and starts the
// asking bundle's controller before it exits. So a new version never keeps an old loop running.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { writeFileAtomic } from '../core/state/atomicWrite';

const entryFileOf = (root: string) => path.join(root, 'controller.entry');
const handoverFileOf = (root: string) => path.join(root, 'controller.handover');

function readText(file: string): string | undefined {
  try {
    return fs.readFileSync(file, 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

/** Written by a controller once it holds the lease: the CLI entry it runs. */
export function recordEntry(root: string, entry: string): void {
  writeFileAtomic(entryFileOf(root), Buffer.from(entry));
  if (readText(handoverFileOf(root)) === entry) fs.rmSync(handoverFileOf(root), { force: true });
}

/** Asks the live controller, if it runs another entry than `entry`, to hand over to it. */
export function askHandover(root: string, entry: string): boolean {
  const running = readText(entryFileOf(root));
  if (!running || running === entry) return false;
  writeFileAtomic(handoverFileOf(root), Buffer.from(entry));
  return true;
}

/** The entry another CLI asked this controller (running `own`) to hand over to, if it exists. */
export function handoverWanted(root: string, own: string): string | undefined {
  const next = readText(handoverFileOf(root));
  if (!next || next === own || !fs.existsSync(next)) return undefined;
  return next;
}

export function clearHandover(root: string): void {
  fs.rmSync(handoverFileOf(root), { force: true });
}
