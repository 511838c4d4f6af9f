import type { HostMessage, JobKey, PanelState } from '../../src/ui/logs/protocol';
import { decodeBase64 } from './base64';
import { Banner } from './banner';
import { el } from './dom';
import { formatBytes } from './format';
import { StatusLine } from './statusLine';
import { TerminalView } from './terminalView';
import { Toolbar } from './toolbar';
import { WriteQueue } from './writeQueue';
import type { HostChannel } from './vscodeApi';

/** How often the page's state (job key and offset) is saved for the serializer. */
const STATE_EVERY_MS = 500;

/** The log page: wires host messages to the terminal, toolbar, banner and status line. */
export class LogsApp {
  readonly view: TerminalView;
  readonly toolbar: Toolbar;
  readonly banner: Banner;
  readonly status = new StatusLine();
  private session = -1;
  private key: JobKey | undefined;
  /** Log offset written through to the terminal. */
  private offset = 0;
  private stateTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly writes = new WriteQueue((data, done) => this.view.write(data, done));

  constructor(root: HTMLElement, private readonly host: HostChannel) {
    this.toolbar = new Toolbar({
      toggleFollow: () => this.view.setFollowing(!this.view.following),
      // The count comes from the search addon's results event; only a miss is reported here.
      search: (text, direction, incremental) => {
        if (!this.view.searchFor(text, direction, incremental)) this.toolbar.setMatches(text ? 'No results' : '');
      },
      clearSearch: () => {
        this.view.search.clearDecorations();
        this.toolbar.setMatches('');
      },
      save: () => host.post({ type: 'save' }),
      openRank: (rank) => host.post({ type: 'openRank', rank }),
    });
    this.banner = new Banner(() => host.post({ type: 'retry' }));
    const termHost = el('div', { className: 'output' });
    root.append(this.toolbar.element, this.banner.element, termHost, this.status.element);
    this.view = new TerminalView(termHost);
    this.view.onLink = (url) => host.post({ type: 'openLink', url });
    this.view.onSource = (path, line) => host.post({ type: 'openSource', path, line });
    this.view.onFollowChange = (following) => {
      this.toolbar.setFollowing(following);
      this.status.setBytes(this.offset, following);
    };
    this.view.search.onDidChangeResults(({ resultIndex, resultCount }) =>
      this.toolbar.setMatches(resultCount === 0 ? 'No results' : resultIndex < 0 ? `${resultCount}+` : `${resultIndex + 1} of ${resultCount}`),
    );
    // Capture: the terminal's textarea stops the keys it handles (End among them) from bubbling.
    document.addEventListener('keydown', (e) => this.onKey(e), true);
    // VS Code swaps the theme class on <body>; pick up the new terminal colours.
    new MutationObserver(() => this.view.refreshTheme()).observe(document.body, { attributes: true, attributeFilter: ['class'] });
    window.addEventListener('message', (e: MessageEvent<HostMessage | null>) => {
      if (e.data && typeof e.data === 'object') this.onMessage(e.data);
    });

    this.status.setBytes(0, true);
    host.post({ type: 'ready', lines: this.view.capacityLines });
  }

  onMessage(m: HostMessage): void {
    switch (m.type) {
      case 'reset':
        this.session = m.session;
        this.key = m.key;
        this.offset = m.from;
        this.writes.clear();
        this.view.reset();
        if (m.skipped > 0) this.writes.push(`\x1b[0;2m… ${formatBytes(m.skipped)} of earlier output not shown here; Save… writes the whole log.\x1b[0m\r\n`);
        this.status.setBytes(this.offset, true);
        this.saveState();
        break;
      case 'append': {
        if (m.session !== this.session) return; // meant for the page this one replaced
        const bytes = decodeBase64(m.data);
        const end = m.offset + bytes.length;
        this.writes.push(bytes, () => {
          if (m.session !== this.session) return;
          this.offset = end;
          this.host.post({ type: 'ack', session: m.session, offset: end, following: this.view.following });
          this.status.setBytes(end, this.view.following);
          this.scheduleState();
        });
        break;
      }
      case 'status':
        this.status.setStatus(m.status);
        this.toolbar.setRanks(m.status.ranks ?? 1, this.key?.rank ?? 0);
        break;
      case 'connection':
        this.banner.show(m.connection);
        break;
      case 'ping':
        this.host.post({ type: 'pong', id: m.id });
        break;
      case 'sourceRoot':
        this.view.setSourceRoot(m.nodeDir);
        break;
    }
  }

  private onKey(e: KeyboardEvent): void {
    if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === 'f') {
      e.preventDefault();
      this.toolbar.searchInput.focus();
      this.toolbar.searchInput.select();
    } else if (e.key === 'End' && document.activeElement !== this.toolbar.searchInput) {
      this.view.setFollowing(true);
    }
  }

  private scheduleState(): void {
    this.stateTimer ??= setTimeout(() => {
      this.stateTimer = undefined;
      this.saveState();
    }, STATE_EVERY_MS);
  }

  private saveState(): void {
    if (!this.key) return;
    const state: PanelState = {
      v: 1, cluster: this.key.cluster, jobId: this.key.jobId, name: this.key.name, offset: this.offset,
      ...(this.key.rank ? { rank: this.key.rank } : {}),
      ...(this.key.managed ? { managed: true } : {}),
    };
    this.host.setState(state);
  }
}
