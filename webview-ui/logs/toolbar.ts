import { el } from './dom';

export interface ToolbarActions {
  toggleFollow(): void;
  search(text: string, direction: 'next' | 'previous', incremental: boolean): void;
  clearSearch(): void;
  save(): void;
  openRank(rank: number): void;
}

/** Follow toggle, find box with previous/next and match count, Save. */
export class Toolbar {
  readonly element: HTMLElement;
  readonly followButton: HTMLButtonElement;
  readonly searchInput: HTMLInputElement;
  readonly matchCount: HTMLElement;
  /** A multi-node job's ranks; hidden for single-node jobs. */
  readonly rankSelect: HTMLSelectElement;
  private rank = 0;

  constructor(actions: ToolbarActions) {
    this.followButton = el('button', { className: 'follow', title: 'Pause or resume following new output (End resumes)' });
    this.followButton.addEventListener('click', () => actions.toggleFollow());
    this.searchInput = el('input', { className: 'find', type: 'search', placeholder: 'Find (Ctrl+F)', spellcheck: false });
    this.searchInput.setAttribute('aria-label', 'Find in log');
    this.matchCount = el('span', { className: 'matches' });
    const prev = el('button', { className: 'icon', title: 'Previous match (Shift+Enter)', textContent: '↑' });
    const next = el('button', { className: 'icon', title: 'Next match (Enter)', textContent: '↓' });
    const save = el('button', { className: 'save', title: 'Save the whole log to a file', textContent: 'Save…' });
    const query = () => this.searchInput.value;
    this.searchInput.addEventListener('input', () => (query() ? actions.search(query(), 'next', true) : actions.clearSearch()));
    this.searchInput.addEventListener('keydown', (e) => {
      if (e.key === 'Enter') actions.search(query(), e.shiftKey ? 'previous' : 'next', false);
      if (e.key === 'Escape') {
        this.searchInput.value = '';
        actions.clearSearch();
      }
    });
    prev.addEventListener('click', () => actions.search(query(), 'previous', false));
    next.addEventListener('click', () => actions.search(query(), 'next', false));
    save.addEventListener('click', () => actions.save());
    this.rankSelect = el('select', { className: 'rank', title: 'Show another rank\'s log (opens its own panel)' });
    this.rankSelect.setAttribute('aria-label', 'Rank');
    this.rankSelect.hidden = true;
    this.rankSelect.addEventListener('change', () => {
      const wanted = Number(this.rankSelect.value);
      this.rankSelect.value = String(this.rank); // this panel keeps showing its own rank
      if (wanted !== this.rank) actions.openRank(wanted);
    });
    this.element = el('div', { className: 'toolbar' }, [
      this.followButton, this.rankSelect, el('span', { className: 'spacer' }), this.searchInput, this.matchCount, prev, next, save,
    ]);
    this.setFollowing(true);
  }

  setFollowing(following: boolean): void {
    this.followButton.textContent = following ? 'Pause' : 'Resume';
    this.followButton.setAttribute('aria-pressed', String(!following));
  }

  /** Rank selector: shown when the job has more than one node. */
  setRanks(count: number, current: number): void {
    this.rank = current;
    if (this.rankSelect.options.length !== count) {
      this.rankSelect.replaceChildren(...Array.from({ length: count }, (_, r) =>
        el('option', { value: String(r), textContent: r === 0 ? 'rank 0 (job log)' : `rank ${r}` })));
    }
    this.rankSelect.value = String(current);
    this.rankSelect.hidden = count < 2;
  }

  setMatches(text: string): void {
    this.matchCount.textContent = text;
  }
}
