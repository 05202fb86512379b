/**
 * Strike × expiry heatmap of net GEX (/v2/gex/strike-expiry-heatmap), drawn on a canvas: one row per expiry,
 * one column per strike within ±30% of spot; green = positive, red = negative, intensity ∝ |value| / max.
 * Hovering a cell names it (title); the status line names the largest cell.
 */
import { clearCharts, COLORS, chartHeight, compact, usd } from '../charts.ts';
import type { PanelView } from '../panel.ts';

export interface HeatmapData {
  readonly strikes: readonly number[];
  readonly expiries: readonly string[];
  readonly values: readonly (readonly number[])[];
}

function cellColor(v: number, max: number): string {
  const a = max === 0 ? 0 : Math.min(1, Math.sqrt(Math.abs(v) / max));
  const [r, g, b] = v >= 0 ? [76, 208, 138] : [255, 107, 107];
  return `rgba(${r},${g},${b},${(0.08 + 0.92 * a).toFixed(3)})`;
}

export function renderHeatmap(view: PanelView, h: HeatmapData, spot: number): void {
  const cols = h.strikes.map((k, j) => [k, j] as const).filter(([k]) => k >= spot * 0.7 && k <= spot * 1.3);
  const rows = h.expiries.map((e, i) => [e, i] as const).filter(([, i]) => cols.some(([, j]) => (h.values[i]?.[j] ?? 0) !== 0));
  if (cols.length === 0 || rows.length === 0) {
    view.set('empty', 'No expiry with gamma near spot in this snapshot.');
    return;
  }
  let max = 0;
  let top = { v: 0, k: 0, e: '' };
  for (const [e, i] of rows) {
    for (const [k, j] of cols) {
      const v = h.values[i]?.[j] ?? 0;
      if (Math.abs(v) > max) {
        max = Math.abs(v);
        top = { v, k, e };
      }
    }
  }
  const dpr = devicePixelRatio;
  const width = Math.max(280, view.box.clientWidth);
  const height = chartHeight();
  const left = 74;
  const bottom = 22;
  const canvas = document.createElement('canvas');
  canvas.width = width * dpr;
  canvas.height = height * dpr;
  canvas.style.width = `${width}px`;
  canvas.style.height = `${height}px`;
  canvas.setAttribute('role', 'img');
  canvas.setAttribute('aria-label', `net GEX heatmap, ${rows.length} expiries by ${cols.length} strikes`);
  const ctx = canvas.getContext('2d');
  if (ctx === null) throw new Error('no 2d canvas');
  ctx.scale(dpr, dpr);
  const cw = (width - left) / cols.length;
  const ch = (height - bottom) / rows.length;
  ctx.font = '11px system-ui, sans-serif';
  ctx.fillStyle = COLORS.axis;
  rows.forEach(([e, i], r) => {
    ctx.fillStyle = COLORS.axis;
    ctx.fillText(e.slice(0, 10), 4, r * ch + ch / 2 + 4);
    cols.forEach(([, j], c) => {
      ctx.fillStyle = cellColor(h.values[i]?.[j] ?? 0, max);
      ctx.fillRect(left + c * cw, r * ch, Math.max(1, cw - 1), Math.max(1, ch - 1));
    });
  });
  ctx.fillStyle = COLORS.axis;
  const every = Math.max(1, Math.ceil(cols.length / Math.floor((width - left) / 60)));
  cols.forEach(([k], c) => {
    if (c % every === 0) ctx.fillText(compact(k), left + c * cw, height - 6);
  });
  canvas.addEventListener('mousemove', (ev) => {
    const c = Math.floor((ev.offsetX - left) / cw);
    const r = Math.floor(ev.offsetY / ch);
    const col = cols[c];
    const row = rows[r];
    canvas.title =
      col && row
        ? `${row[0].slice(0, 10)} · strike ${col[0]}: $${Math.round(h.values[row[1]]?.[col[1]] ?? 0).toLocaleString('en-US')} per 1%`
        : '';
  });
  clearCharts(view.box);
  view.box.append(canvas);
  view.data({ cells: rows.length * cols.length });
  view.set(
    'ready',
    `${rows.length} expiries × ${cols.length} strikes; largest: ${top.e.slice(0, 10)} strike ${top.k} at ${usd(top.v)} per 1%.`,
  );
}
