import type { JobStatusView } from '../../src/ui/logs/protocol';
import { el } from './dom';
import { formatBytes, statusParts } from './format';

/** Below the output: state, duration (ticking while the job runs), exit code or reason, size. */
export class StatusLine {
  readonly element: HTMLElement;
  private readonly state: HTMLElement;
  private readonly detail: HTMLElement;
  private readonly size: HTMLElement;
  private status: JobStatusView | undefined;
  private ticker: ReturnType<typeof setInterval> | undefined;

  constructor() {
    this.state = el('span', { className: 'state' });
    this.detail = el('span', { className: 'detail' });
    this.size = el('span', { className: 'size' });
    this.element = el('div', { className: 'status' }, [this.state, this.detail, el('span', { className: 'spacer' }), this.size]);
    this.element.setAttribute('role', 'status');
  }

  setStatus(s: JobStatusView): void {
    this.status = s;
    this.render();
    const ticking = s.startedAt !== null && s.endedAt === null && !s.final;
    if (ticking && !this.ticker) this.ticker = setInterval(() => this.render(), 1000);
    if (!ticking && this.ticker) {
      clearInterval(this.ticker);
      this.ticker = undefined;
    }
  }

  setBytes(n: number, following: boolean): void {
    this.size.textContent = `${formatBytes(n)}${following ? '' : ' · paused'}`;
  }

  private render(): void {
    if (!this.status) return;
    const { kind, icon, parts } = statusParts(this.status, Date.now() / 1000);
    this.element.dataset.kind = kind;
    this.state.textContent = `${icon} ${parts[0]}`;
    this.detail.textContent = parts.slice(1).join(' · ');
  }
}
