import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * Calls `onChange` shortly after another process (a `skydeck` CLI call in this workspace, another
 * window) saves the state file. The directory is watched, not the file: saves replace the file by
 * a rename (atomicWrite.ts), which would leave a watch on the old inode deaf. `changedOnDisk` tells
 * this window's own saves apart (the store knows the file it last saved), so a reload, whose
 * queue writes the state, does not set off another.
 */
export function watchStateFile(
  file: string, changedOnDisk: () => boolean, onChange: () => void, debounceMs = 200, saving: () => boolean = () => false,
): { dispose(): void } {
  const base = path.basename(file);
  let timer: NodeJS.Timeout | undefined;
  let watcher: fs.FSWatcher | undefined;
  const fire = () => {
    // Our own save may have renamed the file without yet knowing its identity (slow under
    // load): look again once it has, so our save is never taken for another process's.
    if (saving()) {
      timer = setTimeout(fire, debounceMs);
      return;
    }
    timer = undefined;
    if (changedOnDisk()) onChange();
  };
  try {
    watcher = fs.watch(path.dirname(file), { persistent: false }, (_event, name) => {
      // Temporary files and the lock file are not the state (a platform may give no name).
      if ((name && name.toString() !== base) || timer) return;
      timer = setTimeout(fire, debounceMs);
    });
    // A watch that fails later (the folder removed) only loses the early refresh; polls go on.
    watcher.on('error', () => watcher?.close());
  } catch {
    // No watch (inotify limits): the view still refreshes on its polls.
  }
  return {
    dispose() {
      if (timer) clearTimeout(timer);
      watcher?.close();
    },
  };
}
