/** The recent tape (newest first, 50 trades) as a table; in replay, the 50 trades at or before the instant. */
import { clearCharts } from '../charts.ts';
import type { PanelView } from '../panel.ts';

export interface TapeTrade {
  readonly time: string;
  readonly venue: string;
  readonly instrument: string;
  readonly side: 'buy' | 'sell';
  readonly size: number;
  readonly price_usd: number;
  readonly premium_usd: number;
  readonly iv: number | null;
  readonly block: boolean;
}

export const TAPE_LIMIT = 50;

export function renderTape(view: PanelView, trades: readonly TapeTrade[]): void {
  if (trades.length === 0) {
    view.set('empty', 'No option trade in the window.');
    return;
  }
  const table = document.createElement('table');
  const cap = document.createElement('caption');
  cap.textContent = 'Option trades, newest first';
  const head = document.createElement('tr');
  for (const h of ['time (UTC)', 'venue', 'instrument', 'taker', 'size', 'price, USD', 'premium, USD', 'IV']) {
    const th = document.createElement('th');
    th.scope = 'col';
    th.textContent = h;
    head.append(th);
  }
  const thead = document.createElement('thead');
  thead.append(head);
  const tbody = document.createElement('tbody');
  for (const t of trades) {
    const tr = document.createElement('tr');
    tr.className = t.side;
    const cells = [
      t.time.slice(11, 19),
      t.venue,
      `${t.instrument}${t.block ? ' (block)' : ''}`,
      t.side,
      t.size.toString(),
      t.price_usd.toLocaleString('en-US', { maximumFractionDigits: 2 }),
      t.premium_usd.toLocaleString('en-US', { maximumFractionDigits: 0 }),
      t.iv === null ? '—' : `${(t.iv * 100).toFixed(1)}%`,
    ];
    for (const c of cells) {
      const td = document.createElement('td');
      td.textContent = c;
      tr.append(td);
    }
    tbody.append(tr);
  }
  table.append(cap, thead, tbody);
  const wrap = document.createElement('div');
  wrap.className = 'table-wrap';
  wrap.tabIndex = 0;
  wrap.setAttribute('role', 'region');
  wrap.setAttribute('aria-label', 'tape');
  wrap.append(table);
  clearCharts(view.box);
  view.box.append(wrap);
  view.data({ trades: trades.length });
  view.set('ready', `${trades.length} trades, ${trades[trades.length - 1]?.time ?? ''} to ${trades[0]?.time ?? ''}.`);
}
