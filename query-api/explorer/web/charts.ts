/**
 * uPlot helpers (browser): sizing that follows the panel width, vertical marker lines with labels (spot, hvl,
 * walls, the replay instant), bar paths, and a numeric axis format for large dollar values.
 */
import uPlot from 'uplot';

export interface Marker {
  readonly name: string;
  readonly value: number;
  readonly color: string;
  /** Dashed line (0DTE levels, the replay instant). */
  readonly dashed?: boolean;
}

export const COLORS = {
  net: '#7cc4ff',
  odte: '#ffb347',
  call: '#4cd08a',
  put: '#ff6b6b',
  spot: '#f2f2f2',
  hvl: '#ffd84d',
  instant: '#c792ea',
  grid: '#2c3440',
  axis: '#b8c2cc',
} as const;

/** 1.2B, 35.1M, 12.5k, 0.0123: short labels for dollar axes. */
export function compact(v: number): string {
  const a = Math.abs(v);
  if (a >= 1e9) return `${(v / 1e9).toFixed(1)}B`;
  if (a >= 1e6) return `${(v / 1e6).toFixed(1)}M`;
  if (a >= 1e3) return `${(v / 1e3).toFixed(1)}k`;
  if (a === 0) return '0';
  return a >= 1 ? v.toFixed(1) : v.toPrecision(2);
}

const axis = (extra: Partial<uPlot.Axis> = {}): uPlot.Axis => ({
  stroke: COLORS.axis,
  grid: { stroke: COLORS.grid, width: 1 },
  ticks: { stroke: COLORS.grid, width: 1 },
  ...extra,
});

/** -$109.8k, $2.3M: signed dollars for status lines. */
export function usd(v: number): string {
  return `${v < 0 ? '-' : ''}$${compact(Math.abs(v))}`;
}

/** uPlot's clock in UTC (the API's instants are UTC; the page never shows local time). */
export const utc = (ts: number): Date => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC');

export const dollarAxis = (label: string): uPlot.Axis => axis({ label, size: 60, values: (_u, vals) => vals.map(compact) });
export const plainAxis = (label: string, extra: Partial<uPlot.Axis> = {}): uPlot.Axis => axis({ label, ...extra });

/**
 * Draws labelled vertical lines at x values after the series; `markers()` is read at every redraw. `onDraw` gets
 * each drawn marker's x position in CSS pixels from the plot's left edge (markers outside the plot are omitted).
 */
export function markerPlugin(markers: () => readonly Marker[], onDraw?: (xs: Readonly<Record<string, number>>) => void): uPlot.Plugin {
  return {
    hooks: {
      draw: [
        (u: uPlot) => {
          const ctx = u.ctx;
          const { top, height } = u.bbox;
          ctx.save();
          ctx.font = `${Math.round(11 * devicePixelRatio)}px system-ui, sans-serif`;
          let labelRow = 0;
          const drawn: Record<string, number> = {};
          for (const m of markers()) {
            const x = Math.round(u.valToPos(m.value, 'x', true));
            if (!Number.isFinite(x) || x < u.bbox.left || x > u.bbox.left + u.bbox.width) continue;
            drawn[m.name] = Math.round(u.valToPos(m.value, 'x'));
            ctx.strokeStyle = m.color;
            ctx.lineWidth = 1.5 * devicePixelRatio;
            ctx.setLineDash(m.dashed ? [6 * devicePixelRatio, 4 * devicePixelRatio] : []);
            ctx.beginPath();
            ctx.moveTo(x, top);
            ctx.lineTo(x, top + height);
            ctx.stroke();
            ctx.fillStyle = m.color;
            ctx.fillText(m.name, x + 3 * devicePixelRatio, top + (12 + 13 * (labelRow++ % 7)) * devicePixelRatio);
          }
          ctx.restore();
          onDraw?.(drawn);
        },
      ],
    },
  };
}

export const bars = (): uPlot.Series.PathBuilder => {
  const factory = uPlot.paths.bars;
  if (factory === undefined) throw new Error('uPlot bars path builder missing');
  return factory({ size: [0.8, 40] });
};

export function chartHeight(): number {
  return window.matchMedia('(max-width: 700px)').matches ? 220 : 280;
}

/** The charts in a box and the one observer that resizes them (a redraw replaces the charts, not the observer). */
const mounted = new WeakMap<HTMLElement, { charts: { u: uPlot; heightScale: number }[] }>();

/** Destroys the box's charts and empties it (a panel going to `empty` / `error`, or a redraw). */
export function clearCharts(box: HTMLElement): void {
  const entry = mounted.get(box);
  if (entry !== undefined) {
    for (const c of entry.charts) c.u.destroy();
    entry.charts = [];
  }
  box.replaceChildren();
}

/**
 * A uPlot chart in `box`, resized with it; replaces (and destroys) the charts already there unless `append`.
 * One ResizeObserver per box, created on its first chart: a panel redrawn every 30 s (or every replay step) does
 * not pile up observers holding destroyed charts.
 */
export function mountChart(
  box: HTMLElement,
  opts: Omit<uPlot.Options, 'width' | 'height'>,
  data: uPlot.AlignedData,
  heightScale = 1,
  append = false,
): uPlot {
  let entry = mounted.get(box);
  if (entry === undefined) {
    const created: { charts: { u: uPlot; heightScale: number }[] } = { charts: [] };
    entry = created;
    mounted.set(box, created);
    new ResizeObserver(() => {
      const w = Math.max(280, box.clientWidth);
      for (const c of created.charts)
        if (Math.abs(w - c.u.width) > 2) c.u.setSize({ width: w, height: Math.round(chartHeight() * c.heightScale) });
    }).observe(box);
  }
  if (!append) clearCharts(box);
  // Legends name the series without live values (the status line and the axes carry the numbers).
  const u = new uPlot(
    {
      legend: { live: false },
      tzDate: utc,
      ...opts,
      width: Math.max(280, box.clientWidth),
      height: Math.round(chartHeight() * heightScale),
    },
    data,
    box,
  );
  entry.charts.push({ u, heightScale });
  return u;
}
