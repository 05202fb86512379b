/**
 * Market candles with open interest, funding and perp CVD panes from one /v2/market/bundle answer (5-minute
 * buckets over 24 h), cursors synchronised. Candles are drawn by a draw hook (body open→close, wick low→high);
 * a bucket a series lacks is a gap, never carried forward. In replay the instant is a dashed line.
 */
import type uPlot from 'uplot';
import { COLORS, compact, dollarAxis, markerPlugin, mountChart, plainAxis, type Marker } from '../charts.ts';
import type { PanelView } from '../panel.ts';

type Column = readonly (number | null)[];
export interface BundleData {
  readonly timestamps: readonly number[];
  readonly candles: { readonly open: Column; readonly high: Column; readonly low: Column; readonly close: Column } | null;
  readonly open_interest: { readonly oi_usd: Column } | null;
  readonly funding: { readonly rate_mean: Column } | null;
  readonly cvd_perp: { readonly cvd: Column } | null;
}

export const BUNDLE_QUERY = 'interval=5m&hours=24&series=candles,open_interest,funding,cvd_perp';

function candlePlugin(c: NonNullable<BundleData['candles']>): uPlot.Plugin {
  return {
    hooks: {
      draw: [
        (u: uPlot) => {
          const ctx = u.ctx;
          const xs = u.data[0];
          const half = Math.min(6 * devicePixelRatio, Math.max(1, ((u.bbox.width / Math.max(12, xs.length)) * 0.35) | 0));
          ctx.save();
          for (let i = 0; i < xs.length; i++) {
            const [o, h, l, cl] = [c.open[i], c.high[i], c.low[i], c.close[i]];
            if (o == null || h == null || l == null || cl == null) continue;
            const x = Math.round(u.valToPos(xs[i] as number, 'x', true));
            const color = cl >= o ? COLORS.call : COLORS.put;
            ctx.strokeStyle = color;
            ctx.fillStyle = color;
            ctx.beginPath();
            ctx.moveTo(x, u.valToPos(h, 'y', true));
            ctx.lineTo(x, u.valToPos(l, 'y', true));
            ctx.stroke();
            const y1 = u.valToPos(Math.max(o, cl), 'y', true);
            const y2 = u.valToPos(Math.min(o, cl), 'y', true);
            ctx.fillRect(x - half, y1, half * 2, Math.max(1, y2 - y1));
          }
          ctx.restore();
        },
      ],
    },
  };
}

/** Index of the first bucket any series has (a store younger than the window is shown from its first data). */
function firstFilled(b: BundleData): number {
  const cols = [b.candles?.close, b.open_interest?.oi_usd, b.funding?.rate_mean, b.cvd_perp?.cvd].filter(
    (c): c is Column => c !== undefined,
  );
  const i = b.timestamps.findIndex((_, k) => cols.some((c) => c[k] !== null));
  return i < 0 ? b.timestamps.length : i;
}

export function renderMarket(view: PanelView, full: BundleData, instantMs: number | null): void {
  // At least the last hour (12 buckets) stays on screen, so a young store does not draw one bucket full-width.
  const from = Math.max(0, Math.min(firstFilled(full), full.timestamps.length - 12));
  const cut = (c: Column): Column => c.slice(from);
  const b: BundleData = {
    timestamps: full.timestamps.slice(from),
    candles:
      full.candles === null
        ? null
        : { open: cut(full.candles.open), high: cut(full.candles.high), low: cut(full.candles.low), close: cut(full.candles.close) },
    open_interest: full.open_interest === null ? null : { oi_usd: cut(full.open_interest.oi_usd) },
    funding: full.funding === null ? null : { rate_mean: cut(full.funding.rate_mean) },
    cvd_perp: full.cvd_perp === null ? null : { cvd: cut(full.cvd_perp.cvd) },
  };
  const xs = b.timestamps.map((t) => t / 1000);
  const c = b.candles;
  if (xs.length === 0 || c === null || c.close.every((v) => v === null)) {
    view.set('empty', 'No trades in the last 24 hours.');
    return;
  }
  const markers: Marker[] = instantMs === null ? [] : [{ name: 'as_of', value: instantMs / 1000, color: COLORS.instant, dashed: true }];
  const sync = { key: 'market', setSeries: false };
  const common = { cursor: { sync }, plugins: [markerPlugin(() => markers)] };
  mountChart(
    view.box,
    {
      ...common,
      plugins: [candlePlugin(c), markerPlugin(() => markers)],
      // The candles are drawn by the plugin; the series are invisible, there for the y range and the cursor.
      series: [{}, ...['close', 'high', 'low'].map((label) => ({ label, stroke: 'transparent', points: { show: false } }))],
      legend: { show: false },
      axes: [
        plainAxis(''),
        plainAxis('price, USD', {
          size: 64,
          values: (_u: uPlot, vals: number[]) => vals.map((v) => v.toLocaleString('en-US', { maximumFractionDigits: v < 100 ? 3 : 0 })),
        }),
      ],
    },
    [xs, [...c.close], [...c.high], [...c.low]],
    1,
    false,
  );
  const pane = (label: string, col: Column | undefined, color: string, axisLabel: string, fmt?: (v: number) => string): void => {
    if (col === undefined) return;
    mountChart(
      view.box,
      {
        ...common,
        series: [{}, { label, stroke: color, width: 1.5, spanGaps: false }],
        legend: { show: false },
        axes: [
          plainAxis(''),
          fmt ? plainAxis(axisLabel, { size: 60, values: (_u: uPlot, vals: number[]) => vals.map(fmt) }) : dollarAxis(axisLabel),
        ],
      },
      [xs, [...col]],
      0.45,
      true,
    );
  };
  pane('open interest, USD', b.open_interest?.oi_usd, COLORS.net, 'OI, USD');
  pane('funding (mean)', b.funding?.rate_mean, COLORS.odte, 'funding', (v) => `${(v * 100).toFixed(4)}%`);
  pane('perp CVD, coins', b.cvd_perp?.cvd, COLORS.instant, 'CVD', compact);
  const last = [...c.close].reverse().find((v) => v !== null) ?? null;
  view.data({ buckets: xs.length });
  view.set('ready', `${xs.length} five-minute buckets (UTC); last close $${last === null ? '—' : last.toLocaleString('en-US')}.`);
}
