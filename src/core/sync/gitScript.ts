// The sh script that clones or updates a git workdir on the node. URL, ref and dir arrive as
// quoted words; the token (first stdin line) and ssh key (the rest of stdin) only through stdin,
// into a private temp dir removed on exit. git reads the token from an askpass helper, so it is
// in no argument list (`ps`), no URL and no .git/config. Exit codes the caller tells apart:
// 127 git missing, 3 ref not found, 4 fetch failed (unreachable, denied).
import { quotePath, shellQuote } from '../transport/shellQuote';

export const GIT_MISSING = 127;
/** The temp dirs holding a clone's token and key: $TMPDIR/skydeck-git.XXXXXX. */
const TMP_PREFIX = 'skydeck-git';
export const REF_NOT_FOUND = 3;
export const FETCH_FAILED = 4;

// Prints the token for a password prompt and a fixed user name for a user prompt (hosts ignore
// the name when the password is a token).
const ASKPASS = `#!/bin/sh
case "$1" in [Uu]sername*) echo x-access-token ;; *) cat "$(dirname "$0")/token" ;; esac
`;

export function gitScript(dir: string, url: string, ref: string | undefined): string {
  const u = shellQuote(url);
  // No ref: the remote's HEAD, i.e. its default branch (not whichever branch FETCH_HEAD lists first).
  const fetchOne = `git fetch -q --depth 1 origin ${shellQuote(ref ?? 'HEAD')}`;
  const resolveRef = ref === undefined
    ? 'git rev-parse -q --verify "refs/remotes/origin/HEAD^{commit}"'
    : `{ git rev-parse -q --verify ${shellQuote(`refs/remotes/origin/${ref}^{commit}`)} || git rev-parse -q --verify ${shellQuote(`refs/tags/${ref}^{commit}`)} || git rev-parse -q --verify ${shellQuote(`${ref}^{commit}`)}; }`;
  return [
    'command -v git >/dev/null 2>&1 || { echo "git is not installed on this node" >&2; exit 127; }',
    // A clone killed by a signal removes its dir at once; a SIGKILLed one's (its shell gone) is
    // removed by the next clone: each dir records its shell's pid.
    `umask 077; T=\${TMPDIR:-/tmp}; for d in "$T"/${TMP_PREFIX}.*; do [ -O "$d" ] && p=$(cat "$d/pid" 2>/dev/null) && ! kill -0 "$p" 2>/dev/null && rm -rf "$d"; done`,
    `H=$(mktemp -d "$T/${TMP_PREFIX}.XXXXXX") || exit 1; echo $$ > "$H/pid"`,
    'trap \'rm -rf "$H"\' EXIT; trap \'exit 129\' HUP; trap \'exit 130\' INT; trap \'exit 143\' TERM; trap \'exit 141\' PIPE',
    'IFS= read -r tok || true; cat > "$H/key"',
    `if [ -n "$tok" ]; then printf '%s\\n' "$tok" > "$H/token"; printf '%s' ${shellQuote(ASKPASS)} > "$H/askpass"; chmod 700 "$H/askpass"; export GIT_ASKPASS="$H/askpass"; fi`,
    'unset tok',
    // accept-new: a fresh node has no host key for the git server; a changed one is still refused.
    'if [ -s "$H/key" ]; then export GIT_SSH_COMMAND="ssh -i $H/key -o IdentitiesOnly=yes -o BatchMode=yes -o StrictHostKeyChecking=accept-new"; ' +
      'else export GIT_SSH_COMMAND="ssh -o BatchMode=yes -o StrictHostKeyChecking=accept-new"; fi',
    // Only the transports gitAuth.ts accepts: never a remote helper such as ext::.
    'export GIT_TERMINAL_PROMPT=0 GIT_CONFIG_NOSYSTEM=1 GIT_ALLOW_PROTOCOL=https:http:ssh:git:file',
    `mkdir -p ${quotePath(dir)} && cd ${quotePath(dir)} || exit 1`,
    '[ -d .git ] || git init -q || exit 1',
    `if git remote get-url origin >/dev/null 2>&1; then git remote set-url origin ${u}; else git remote add origin ${u}; fi || exit 1`,
    // Shallow fetch of the one ref works for branches, tags and (where the server allows it)
    // full commit ids; otherwise everything is fetched and the ref resolved locally.
    `if ${fetchOne} 2>"$H/err"; then c=$(git rev-parse -q --verify 'FETCH_HEAD^{commit}')`,
    `else git fetch -q --tags origin '+refs/heads/*:refs/remotes/origin/*' 2>>"$H/err" || { cat "$H/err" >&2; exit 4; }`,
    ref === undefined ? '  git remote set-head origin -a >/dev/null 2>&1' : '  :',
    `  c=$(${resolveRef}) || { echo "ref not found in the repository" >&2; exit 3; }`,
    'fi',
    '[ -n "$c" ] || { cat "$H/err" >&2; exit 3; }',
    'git checkout -q -f --detach "$c" && git clean -q -f -d && git rev-parse HEAD',
  ].join('\n');
}
