/**
 * Python (stdlib) `place(src, dst)`: renames every entry of an unpacked tree into the
 * destination, so a job reading the workdir, or another exec syncing the same workdir at the
 * same moment, sees each file whole — old or new, never torn. Shared by both sync scripts.
 */
export const PLACE_FN_PY = `
def place(src, dst):
    for root, dirs, files in os.walk(src):
        rel = os.path.relpath(root, src)
        target = dst if rel == '.' else os.path.join(dst, rel)
        if not os.path.isdir(target) or os.path.islink(target):
            if os.path.lexists(target):
                os.unlink(target)
            os.makedirs(target, exist_ok=True)
        links = [d for d in dirs if os.path.islink(os.path.join(root, d))]
        for name in files + links:
            to = os.path.join(target, name)
            if os.path.isdir(to) and not os.path.islink(to):
                # A directory that became a file or link here: its synced content was removed
                # first (the delta's removals); what a job left in it stops the sync.
                try:
                    os.rmdir(to)
                except OSError:
                    sys.exit('cannot replace directory %s with a file: it is not empty' % to)
            os.replace(os.path.join(root, name), to)
        dirs[:] = [d for d in dirs if d not in links]
`;

/** Run on the node after a tar stream was unpacked into a private temp dir. argv: TEMP_DIR DEST_DIR */
export const PLACE_TREE_PY = `
import os, shutil, sys
${PLACE_FN_PY}
src, dst = sys.argv[1], sys.argv[2]
try:
    place(src, dst)
finally:
    shutil.rmtree(src, ignore_errors=True)
`;
