import type { ConnectionView } from '../../src/ui/logs/protocol';
import { el } from './dom';

/** Above the output: "reconnecting…" while the SSH link is down, or why following stopped. */
export class Banner {
  readonly element: HTMLElement;
  private readonly text: HTMLElement;
  private readonly retry: HTMLButtonElement;

  constructor(onRetry: () => void) {
    this.text = el('span', { className: 'text' });
    this.retry = el('button', { textContent: 'Retry' });
    this.retry.addEventListener('click', onRetry);
    this.element = el('div', { className: 'banner', hidden: true }, [this.text, this.retry]);
    this.element.setAttribute('role', 'status');
  }

  show(c: ConnectionView): void {
    this.element.hidden = c.state === 'live' || c.state === 'ended';
    this.element.dataset.state = c.state;
    this.retry.hidden = c.state !== 'stopped';
    if (c.state === 'reconnecting') this.text.textContent = `Connection lost — reconnecting… (${c.message})`;
    if (c.state === 'stopped') this.text.textContent = `Not following: ${c.message}`;
  }
}
