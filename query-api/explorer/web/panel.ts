/**
 * One panel of the page (browser): a <section> with a title, a chart box and a status line. `data-state` is
 * `loading`, `ready`, `empty` or `error`; the browser tests and screen readers both read it.
 */
import { clearCharts } from './charts.ts';

export type PanelState = 'loading' | 'ready' | 'empty' | 'error';

export class PanelView {
  readonly el: HTMLElement;
  readonly box: HTMLElement;
  private readonly status: HTMLElement;

  constructor(
    parent: HTMLElement,
    readonly id: string,
    title: string,
    help: string,
  ) {
    this.el = document.createElement('section');
    this.el.className = 'panel';
    this.el.id = `panel-${id}`;
    this.el.setAttribute('aria-labelledby', `panel-${id}-title`);
    const h = document.createElement('h2');
    h.id = `panel-${id}-title`;
    h.textContent = title;
    const p = document.createElement('p');
    p.className = 'help';
    p.textContent = help;
    this.box = document.createElement('div');
    this.box.className = 'chart';
    this.status = document.createElement('p');
    this.status.className = 'status';
    this.status.setAttribute('aria-live', 'polite');
    this.el.append(h, p, this.box, this.status);
    parent.append(this.el);
    this.set('loading');
  }

  set(state: PanelState, note = ''): void {
    this.el.dataset['state'] = state;
    this.status.textContent = state === 'loading' ? 'Loading…' : note;
    this.status.classList.toggle('error', state === 'error');
    if (state === 'error' || state === 'empty') clearCharts(this.box);
  }

  /** Values the tests compare with the API (and a reader can inspect). */
  data(values: Record<string, string | number | null | undefined>): void {
    for (const [k, v] of Object.entries(values)) {
      if (v === null || v === undefined) delete this.el.dataset[k];
      else this.el.dataset[k] = String(v);
    }
  }
}
