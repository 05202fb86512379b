/**
 * Options smile (mark IV against log-moneyness ln(K/F), the four nearest expiries, from /v2/options/iv/smile) and
 * the ATM term structure (listed expiries and constant maturities, from /v2/options/iv/term-structure).
 */
import { COLORS, mountChart, plainAxis } from '../charts.ts';
import type { PanelView } from '../panel.ts';

export interface SmileData {
  readonly expiries: readonly {
    readonly expiry: string;
    readonly dte: number;
    readonly atm_iv: number | null;
    readonly points: readonly { readonly log_moneyness: number; readonly mark_iv: number | null }[];
  }[];
}
export interface TermData {
  readonly expiries: readonly { readonly expiry: string; readonly dte: number; readonly atm_iv: number | null }[];
  readonly constant_maturity: readonly { readonly days: number; readonly atm_iv: number | null }[];
}

const PALETTE = [COLORS.net, COLORS.odte, COLORS.call, COLORS.instant];
const pct = (v: number): string => `${(v * 100).toFixed(0)}%`;

export function renderSmile(view: PanelView, s: SmileData): void {
  const curves = s.expiries.filter((e) => e.points.some((p) => p.mark_iv !== null)).slice(0, 4);
  if (curves.length === 0) {
    view.set('empty', 'No expiry with mark IVs in this snapshot.');
    return;
  }
  // One shared x axis (uPlot): the union of the curves' log-moneyness points, each curve null elsewhere.
  const xs = [...new Set(curves.flatMap((e) => e.points.map((p) => Math.round(p.log_moneyness * 1e6) / 1e6)))].sort((a, b) => a - b);
  const ys = curves.map((e) => {
    const m = new Map(e.points.map((p) => [Math.round(p.log_moneyness * 1e6) / 1e6, p.mark_iv]));
    return xs.map((x) => m.get(x) ?? null);
  });
  mountChart(
    view.box,
    {
      series: [
        { label: 'ln(K/F)' },
        ...curves.map((e, i) => ({
          label: `${e.expiry.slice(0, 10)} (${e.dte.toFixed(1)} d)`,
          stroke: PALETTE[i] ?? COLORS.spot,
          width: 1.5,
          spanGaps: true,
          value: (_u: unknown, v: number | null) => (v === null ? '—' : pct(v)),
        })),
      ],
      axes: [plainAxis('log-moneyness ln(K/F)'), plainAxis('mark IV', { size: 50, values: (_u, vals) => vals.map(pct) })],
      scales: { x: { time: false } },
    },
    [xs, ...ys],
  );
  view.data({ curves: curves.length });
  view.set('ready', `${curves.length} nearest expiries; ATM ${curves.map((e) => (e.atm_iv === null ? '—' : pct(e.atm_iv))).join(', ')}.`);
}

export function renderTerm(view: PanelView, t: TermData): void {
  const listed = t.expiries.filter((e) => e.atm_iv !== null);
  if (listed.length === 0) {
    view.set('empty', 'No expiry with an ATM IV in this snapshot.');
    return;
  }
  const cm = new Map(t.constant_maturity.map((c) => [c.days, c.atm_iv]));
  const xs = [...new Set([...listed.map((e) => e.dte), ...cm.keys()])].sort((a, b) => a - b);
  const byDte = new Map(listed.map((e) => [e.dte, e.atm_iv]));
  mountChart(
    view.box,
    {
      series: [
        { label: 'days' },
        {
          label: 'ATM IV (listed expiries)',
          stroke: COLORS.net,
          width: 2,
          spanGaps: true,
          value: (_u: unknown, v: number | null) => (v === null ? '—' : pct(v)),
        },
        {
          label: 'constant maturity',
          stroke: COLORS.odte,
          width: 0,
          points: { show: true, size: 8, fill: COLORS.odte },
          value: (_u: unknown, v: number | null) => (v === null ? '—' : pct(v)),
        },
      ],
      axes: [plainAxis('days to expiry'), plainAxis('ATM IV', { size: 50, values: (_u, vals) => vals.map(pct) })],
      scales: { x: { time: false } },
    },
    [xs, xs.map((x) => byDte.get(x) ?? null), xs.map((x) => cm.get(x) ?? null)],
  );
  view.data({ expiries: listed.length });
  view.set('ready', `${listed.length} expiries from ${listed[0]?.dte.toFixed(1)} to ${listed[listed.length - 1]?.dte.toFixed(1)} days.`);
}
