import { Terminal } from '@xterm/xterm';
import { FitAddon } from '@xterm/addon-fit';
import { SearchAddon, type ISearchOptions } from '@xterm/addon-search';
import { editorFont, vscodeTerminalTheme } from './theme';
import { isWebUrl } from '../../src/ui/logs/protocol';
import { linkableRefs } from '../../src/ui/logs/traceback';

/** Lines kept for scrolling back; each costs ~12 bytes per column, so this bounds memory. */
export const SCROLLBACK = 10_000;

const SEARCH_DECORATIONS: ISearchOptions['decorations'] = {
  matchBackground: '#623315',
  activeMatchBackground: '#a0522d',
  matchOverviewRuler: '#d18616',
  activeMatchColorOverviewRuler: '#ff8c00',
};

/**
 * The read-only terminal that renders job output (ANSI colours, `\r` progress bars) and
 * decides whether the view follows new output. Following pauses when the user scrolls up or
 * presses Pause, and resumes when they scroll back to the end or press Resume.
 */
export class TerminalView {
  readonly term: Terminal;
  readonly search = new SearchAddon({ highlightLimit: 1000 });
  private readonly fit = new FitAddon();
  private followingNow = true;
  /** While paused: the first line shown, held still as output arrives. */
  private pinned = 0;
  onFollowChange: (following: boolean) => void = () => undefined;
  /** A web link in the output was clicked (the host confirms before opening anything). */
  onLink: (url: string) => void = () => undefined;
  /** A traceback's `File "…", line N` inside the job's workdir was clicked (the host maps and opens it). */
  onSource: (nodePath: string, line: number) => void = () => undefined;
  /** The job's workdir on the node, once the host knows it: traceback paths under it are links. */
  private sourceRoot: string | undefined;

  constructor(private readonly host: HTMLElement) {
    const theme = vscodeTerminalTheme(document);
    host.style.backgroundColor = theme.background ?? '';
    this.term = new Terminal({
      ...editorFont(document),
      theme,
      scrollback: SCROLLBACK,
      disableStdin: true,
      // Job output comes from pipes: lines end in a bare \n, which a terminal would staircase.
      convertEol: true,
      cursorBlink: false,
      cursorInactiveStyle: 'none',
      allowProposedApi: true, // the search addon's match decorations use the decoration API
      // OSC 8 hyperlinks come from the job: xterm's own handler would open them from the page.
      // Only http(s) gets through, and only as a request to the host, which asks the user.
      linkHandler: {
        allowNonHttpProtocols: false,
        activate: (_event, text) => {
          if (isWebUrl(text)) this.onLink(text);
        },
      },
    });
    this.term.loadAddon(this.fit);
    this.term.loadAddon(this.search);
    // Traceback lines become links only for files under the synced workdir; the rest stay text.
    // One screen row at a time: a path wrapped over two rows is not linked.
    this.term.registerLinkProvider({
      provideLinks: (y, callback) => {
        const root = this.sourceRoot;
        const text = root ? this.term.buffer.active.getLine(y - 1)?.translateToString(true) ?? '' : '';
        const links = root ? linkableRefs(text, root).map((r) => ({
          range: { start: { x: r.start + 1, y }, end: { x: r.end, y } },
          text: text.slice(r.start, r.end),
          activate: () => this.onSource(r.path, r.line),
        })) : [];
        callback(links.length ? links : undefined);
      },
    });
    this.term.open(host);
    this.term.attachCustomKeyEventHandler((e) => !this.isPageShortcut(e));
    this.term.onWriteParsed(() => this.holdPin());
    this.term.onScroll(() => this.trackPin());
    // User intent, as opposed to output, moves the viewport: wheel, keys, scrollbar drags.
    // A click (selecting text) may pause but never resumes: only scrolling to the end does.
    for (const ev of ['wheel', 'keyup', 'pointerup'] as const) {
      host.addEventListener(ev, () => requestAnimationFrame(() => this.userScrolled(ev !== 'pointerup')), { passive: true, capture: true });
    }
    new ResizeObserver(() => this.refit()).observe(host);
    this.refit();
  }

  /**
   * Lines a replay should bring: the scrollback's worth. The screen's rows would hold a few
   * more, but they change as the panel is fitted and resized, and a replay that overfills the
   * buffer pushes out the "earlier output not shown" line the page writes above it.
   */
  get capacityLines(): number {
    return SCROLLBACK;
  }

  write(data: Uint8Array | string, done?: () => void): void {
    this.term.write(data, done);
  }

  reset(): void {
    this.search.clearDecorations();
    this.term.reset();
    this.setFollowing(true);
  }

  get following(): boolean {
    return this.followingNow;
  }

  setFollowing(following: boolean): void {
    const b = this.term.buffer.active;
    if (following) {
      this.term.scrollToBottom();
    } else {
      this.pinned = b.viewportY;
    }
    if (following === this.followingNow) return;
    this.followingNow = following;
    this.onFollowChange(following);
  }

  setSourceRoot(nodeDir: string): void {
    this.sourceRoot = nodeDir;
  }

  refreshTheme(): void {
    const theme = vscodeTerminalTheme(document);
    this.host.style.backgroundColor = theme.background ?? '';
    this.term.options.theme = theme;
  }

  focus(): void {
    this.term.focus();
  }

  private refit(): void {
    if (this.host.clientWidth > 0 && this.host.clientHeight > 0) this.fit.fit();
  }

  /** Keeps a paused viewport where it was: xterm itself only holds it once it is off the bottom. */
  private holdPin(): void {
    if (this.followingNow) return;
    const b = this.term.buffer.active;
    if (b.viewportY === b.baseY && this.pinned < b.baseY) this.term.scrollToLine(this.pinned);
  }

  private trackPin(): void {
    const b = this.term.buffer.active;
    if (!this.followingNow && b.viewportY < b.baseY) this.pinned = b.viewportY;
  }

  private userScrolled(mayResume: boolean): void {
    const b = this.term.buffer.active;
    const atEnd = b.viewportY >= b.baseY;
    if (!atEnd && this.followingNow) this.setFollowing(false);
    else if (atEnd && !this.followingNow && mayResume) this.setFollowing(true);
  }

  /** Shortcuts the page handles rather than the terminal (Ctrl/Cmd+F opens search). */
  private isPageShortcut(e: KeyboardEvent): boolean {
    return (e.ctrlKey || e.metaKey) && e.key.toLowerCase() === 'f';
  }

  searchFor(text: string, direction: 'next' | 'previous', incremental = false): boolean {
    if (!text) {
      this.search.clearDecorations();
      return false;
    }
    const opts: ISearchOptions = { decorations: SEARCH_DECORATIONS, incremental };
    const found = direction === 'next' ? this.search.findNext(text, opts) : this.search.findPrevious(text, opts);
    // Jumping to a match scrolls back: stop following so new output does not yank the view away.
    if (found) {
      const b = this.term.buffer.active;
      if (b.viewportY < b.baseY) this.setFollowing(false);
    }
    return found;
  }
}
