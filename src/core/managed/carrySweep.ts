// The controller's side of carried files (carryFiles.ts): a job's copies are removed once it
// has ended and its cluster is gone; a sweep removes those no job with work left names. Only a
// directory named by a well-formed token directly under the uploads root is ever removed (a
// planted link there goes as a link).
import * as fs from 'node:fs';
import { UPLOAD_TOKEN, uploadsRoot } from './carryFiles';

/** A submit killed between sending the files and recording the job leaves them; kept this long. */
export const ORPHAN_UPLOAD_MS = 60 * 60_000;

/** Removes the job's copies (its recorded token) on this machine, the controller's. */
export function dropJobUploads(token: string | null | undefined, controllerWorkspace: string): void {
  if (token && UPLOAD_TOKEN.test(token)) fs.rmSync(`${uploadsRoot(controllerWorkspace)}/${token}`, { recursive: true, force: true });
}

/**
 * Removes the copies of jobs that have ended (a controller killed before it removed them) and,
 * once ORPHAN_UPLOAD_MS old (a sender refreshes its directory's time while it sends), those no
 * job names. `unreadable`: the store has rows it could not read, which may name any: only ended
 * jobs' copies go then. Returns the directories removed.
 */
export function sweepUploads(jobs: { uploads?: string | null; active: boolean }[], controllerWorkspace: string, now: number, unreadable = false): string[] {
  const root = uploadsRoot(controllerWorkspace);
  let names: string[];
  try {
    names = fs.readdirSync(root);
  } catch {
    return [];
  }
  const named = new Map<string, boolean>();
  for (const j of jobs) if (j.uploads) named.set(j.uploads, (named.get(j.uploads) ?? false) || j.active);
  const removed: string[] = [];
  for (const n of names) {
    if (!UPLOAD_TOKEN.test(n) || named.get(n) === true) continue;
    const dir = `${root}/${n}`;
    if (!named.has(n)) {
      if (unreadable) continue;
      let age: number;
      try { age = now - fs.lstatSync(dir).mtimeMs; } catch { continue; }
      if (age < ORPHAN_UPLOAD_MS) continue;
    }
    fs.rmSync(dir, { recursive: true, force: true });
    removed.push(dir);
  }
  return removed;
}
