import { el } from './dom';

export interface ToolbarActions {
  toggleFollow(): void;
  search(text: string, direction: 'next' | 'previous', incremental: boolean): void;
  clearSearch(): void;
  save(): void;
}

/** Follow toggle, find box with previous/next and match count, Save. */
export class Toolbar {
  readonly element: HTMLElement;
  readonly followButton: HTMLButtonElement;
  readonly searchInput: HTMLInputElement;
  readonly matchCount: HTMLElement;

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
    this.element = el('div', { className: 'toolbar' }, [
      this.followButton, el('span', { className: 'spacer' }), this.searchInput, this.matchCount, prev, next, save,
    ]);
    this.setFollowing(true);
  }

  setFollowing(following: boolean): void {
    this.followButton.textContent = following ? 'Pause' : 'Resume';
    this.followButton.setAttribute('aria-pressed', String(!following));
  }

  setMatches(text: string): void {
    this.matchCount.textContent = text;
  }
}
