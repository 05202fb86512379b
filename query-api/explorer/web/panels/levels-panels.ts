/**
 * The GEX profile (net GEX against hypothetical spot, all expiries and 0DTE, with spot, hvl, call resistance and
 * put support lines; 0DTE levels dashed) and GEX by strike (call and put bars), both from one /v2/gex/levels
 * answer with `include=profile,by_strike`.
 */
import type { LevelsData } from '#processors/analytics/levels.ts';
import { bars, COLORS, compact, dollarAxis, markerPlugin, mountChart, plainAxis, usd, type Marker } from '../charts.ts';
import type { PanelView } from '../panel.ts';

export const LEVELS_INCLUDE = 'profile,by_strike';

function levelMarkers(l: LevelsData, spot: number): Marker[] {
  const out: Marker[] = [{ name: 'spot', value: spot, color: COLORS.spot }];
  const add = (name: string, v: number | null, color: string, dashed = false): void => {
    if (v !== null) out.push({ name, value: v, color, dashed });
  };
  add('hvl', l.all_expiry.hvl, COLORS.hvl);
  add('call resistance', l.all_expiry.call_resistance, COLORS.call);
  add('put support', l.all_expiry.put_support, COLORS.put);
  add('0DTE hvl', l.odte.hvl, COLORS.hvl, true);
  add('0DTE call res.', l.odte.call_resistance, COLORS.call, true);
  add('0DTE put sup.', l.odte.put_support, COLORS.put, true);
  return out;
}

export function renderProfile(view: PanelView, l: LevelsData, spot: number, snapshotAt: string): void {
  const p = l.profile;
  if (p === undefined || p.net_gex.every((v) => v === 0)) {
    view.data({ hvl: null });
    view.set('empty', 'No gamma in this snapshot (no open interest with an IV yet).');
    return;
  }
  const markers = levelMarkers(l, spot);
  const series: (number | null)[][] = [[...p.net_gex]];
  const opts = {
    series: [
      { label: 'spot' },
      {
        label: 'net GEX (all expiries)',
        stroke: COLORS.net,
        width: 2,
        value: (_u: unknown, v: number | null) => (v === null ? '' : `$${Math.round(v).toLocaleString('en-US')}`),
      },
    ] as object[],
    axes: [plainAxis('hypothetical spot, USD', { values: (_u, vals) => vals.map(compact) }), dollarAxis('USD per 1% move')],
    // The drawn position of the hvl line (CSS px from the plot's left edge), for readers and the browser test.
    plugins: [
      markerPlugin(
        () => markers,
        (xs) => view.data({ hvlX: xs['hvl'] }),
      ),
    ],
    scales: { x: { time: false } },
  };
  if (p.odte_net_gex !== null) {
    series.push([...p.odte_net_gex]);
    opts.series.push({ label: 'net GEX (0DTE)', stroke: COLORS.odte, width: 1.5, dash: [6, 4] });
  }
  view.data({ hvlX: null });
  mountChart(view.box, opts as Parameters<typeof mountChart>[1], [[...p.spot], ...series]);
  view.data({
    snapshotAt,
    spot,
    hvl: l.all_expiry.hvl,
    callResistance: l.all_expiry.call_resistance,
    putSupport: l.all_expiry.put_support,
    odteHvl: l.odte.hvl,
    positioning: l.positioning,
  });
  const hvl =
    l.all_expiry.hvl === null
      ? `none (${l.all_expiry.hvl_reason ?? 'no flip'})`
      : `$${l.all_expiry.hvl.toLocaleString('en-US', { maximumFractionDigits: 0 })}`;
  view.set('ready', `Snapshot ${snapshotAt}, ${l.positioning} model; hvl ${hvl}; net GEX at spot ${usd(l.all_expiry.net_gex)} per 1%.`);
}

export function renderByStrike(view: PanelView, l: LevelsData, spot: number): void {
  const b = l.by_strike;
  // Strikes within ±30% of spot: the far wings hold no gamma worth a bar and squash the rest.
  const keep = (b?.strikes ?? []).map((k, i) => [k, i] as const).filter(([k]) => k >= spot * 0.7 && k <= spot * 1.3);
  if (b === undefined || keep.length === 0 || keep.every(([, i]) => (b.call_gex[i] ?? 0) === 0 && (b.put_gex[i] ?? 0) === 0)) {
    view.set('empty', 'No strike with gamma in this snapshot.');
    return;
  }
  const at = (arr: readonly number[]): number[] => keep.map(([, i]) => arr[i] ?? 0);
  const markers: Marker[] = [{ name: 'spot', value: spot, color: COLORS.spot }];
  mountChart(
    view.box,
    {
      series: [
        { label: 'strike' },
        { label: 'call GEX', stroke: COLORS.call, fill: `${COLORS.call}cc`, paths: bars(), points: { show: false } },
        { label: 'put GEX', stroke: COLORS.put, fill: `${COLORS.put}cc`, paths: bars(), points: { show: false } },
      ],
      axes: [plainAxis('strike, USD', { values: (_u, vals) => vals.map(compact) }), dollarAxis('USD per 1% move')],
      plugins: [markerPlugin(() => markers)],
      scales: { x: { time: false } },
    },
    [keep.map(([k]) => k), at(b.call_gex), at(b.put_gex)],
  );
  view.data({ strikes: keep.length });
  view.set('ready', `${keep.length} strikes within ±30% of spot, ${l.positioning} model.`);
}
