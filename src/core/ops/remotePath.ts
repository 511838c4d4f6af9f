import { shellQuote } from '../transport/shellQuote';

/** A remote path as a shell word: a leading "~/" becomes "$HOME"/…, the rest is quoted. */
export function remotePathWord(p: string): string {
  if (p === '~') return '"$HOME"';
  if (p.startsWith('~/')) return `"$HOME"/${shellQuote(p.slice(2))}`;
  return shellQuote(p);
}
