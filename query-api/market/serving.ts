import { cellAt, type ColumnsResult, type ResultColumn, type Store } from '#clickhouse/store.ts';
import { isStoreUnavailable } from '#clickhouse/errors.ts';
import { readBundle, reasonOf } from './bundle-series.ts';
import { INTERVAL_MINUTES, maxHoursFor, pointsFor, type Grid, type MarketInterval } from './grid.ts';
import { venuesOfMask, type SeriesData } from './layout.ts';
import type { SeriesSummary } from './meta.ts';
import { changedRanges, readParts, type PartsSnapshot, type TableParts } from './parts.ts';
import { CANDLE_FIELDS, LIQUIDATION_FIELDS, readCandles, readOpenInterest, type SeriesName, type TradeMarket } from './series.ts';
import { CANDLES_SQL, LIQUIDATIONS_SQL, PERP_STATS_SQL } from './sql.ts';
import { tierFor, type Tier } from './tiers.ts';

/**
 * The serving path of the market routes: per process, per (symbol, interval, state table) the rows of the roll-up
 * statements of sql.ts (the same SQL, the same buckets) held in typed arrays, with the JSON text of each value
 * rendered once, revalidated on every request against the tables' active data parts (parts.ts).
 *
 * Per request, for the (symbol, tier) of the request, under a lock:
 *   1. one statement: the active parts of the tier's state tables (system.parts);
 *   2. per state table the request needs, the buckets to read = the covered buckets whose time range a part that
 *      appeared or disappeared since the last read overlaps (late writes, gap fills, rebuild mutations, merges, the
 *      live minute), plus the requested buckets not covered yet (the window moved, a longer window); read as ONE
 *      statement over their hull with the roll-up SQL, every bucket of the hull cleared and rewritten;
 *   3. the response's column JSON is cut from the rendered chunks (CVD's running sum is computed per window).
 * A bucket's roll-up depends only on the rows of the parts overlapping it, and a part never changes (ClickHouse
 * replaces it), so a bucket not re-read has the value the roll-up path returns for the same parts. Nothing changed:
 * no data statement at all. Bounded: MARKET_SERVING_MAX_BYTES (least recently used state tables dropped first);
 * per (symbol, interval, table) at most the interval's largest window (grid.ts maxHoursFor) is kept.
 * On a cluster (Distributed tables: no local parts) it is off and the roll-up path serves.
 */

/** Estimated bytes of all held structures (typed arrays + rendered text); least recently used go first above it. */
export const MARKET_SERVING_MAX_BYTES = 256 * 1024 * 1024;
/** Buckets per chunk (rendering unit: a change re-renders the chunks it touches). */
const CHUNK = 512;

type SourceKind = 'perp' | 'spot' | 'stats' | 'liq';

interface SourceDef {
  readonly family: string;
  readonly sql: Readonly<Record<Tier, string>>;
  readonly params: Readonly<Record<string, string>>;
  /** Numeric result columns held (all but `t`). */
  readonly columns: readonly string[];
}

const TRADE_COLUMNS = [...CANDLE_FIELDS, 'last_ms', 'venue_mask'];
const SOURCES: Readonly<Record<SourceKind, SourceDef>> = {
  perp: { family: 'market_trades', sql: CANDLES_SQL, params: { market: 'perp' }, columns: TRADE_COLUMNS },
  spot: { family: 'market_trades', sql: CANDLES_SQL, params: { market: 'spot' }, columns: TRADE_COLUMNS },
  stats: {
    family: 'market_perp_stats',
    sql: PERP_STATS_SQL,
    params: {},
    columns: [
      'oi_venues',
      'oi',
      'oi_usd',
      'oi_last_ms',
      'oi_mask',
      'funding_venues',
      'rate_open',
      'rate_close',
      'rate_mean',
      'funding_last_ms',
      'funding_mask',
    ],
  },
  liq: { family: 'market_liquidations', sql: LIQUIDATIONS_SQL, params: {}, columns: [...LIQUIDATION_FIELDS, 'last_ms', 'venue_mask'] },
};
const FAMILIES = ['market_trades', 'market_perp_stats', 'market_liquidations'] as const;

/** An output column of a series: a held result column, delta = buy − sell, or the window's running sum of delta. */
type OutColumn = { readonly out: string; readonly col: string } | { readonly out: string; readonly derived: 'delta' | 'cvd' };

/** A series as layout.ts lays it: which result columns, its bucket metadata, its presence rule. */
interface View {
  readonly source: SourceKind;
  readonly columns: readonly OutColumn[];
  readonly lastMs: string;
  readonly mask: string;
  /** A bucket belongs to the series only where this count is > 0 (else: where the roll-up has a row). */
  readonly present: string | null;
}

const same = (fields: readonly string[]): OutColumn[] => fields.map((f) => ({ out: f, col: f }));
const candlesView = (source: SourceKind): View => ({
  source,
  columns: same(CANDLE_FIELDS),
  lastMs: 'last_ms',
  mask: 'venue_mask',
  present: null,
});
const cvdView = (source: SourceKind): View => ({
  source,
  columns: [
    { out: 'delta', derived: 'delta' },
    { out: 'cvd', derived: 'cvd' },
    { out: 'buy_volume', col: 'buy_volume' },
    { out: 'sell_volume', col: 'sell_volume' },
  ],
  lastMs: 'last_ms',
  mask: 'venue_mask',
  present: null,
});
const OI_VIEW: View = {
  source: 'stats',
  columns: [
    { out: 'oi', col: 'oi' },
    { out: 'oi_usd', col: 'oi_usd' },
    { out: 'venue_count', col: 'oi_venues' },
  ],
  lastMs: 'oi_last_ms',
  mask: 'oi_mask',
  present: 'oi_venues',
};
const VIEWS: Readonly<Record<SeriesName, View>> = {
  candles: candlesView('perp'),
  open_interest: OI_VIEW,
  funding: {
    source: 'stats',
    columns: [
      { out: 'rate_open', col: 'rate_open' },
      { out: 'rate_close', col: 'rate_close' },
      { out: 'rate_mean', col: 'rate_mean' },
      { out: 'venue_count', col: 'funding_venues' },
    ],
    lastMs: 'funding_last_ms',
    mask: 'funding_mask',
    present: 'funding_venues',
  },
  cvd_perp: cvdView('perp'),
  cvd_spot: cvdView('spot'),
  liquidations: { source: 'liq', columns: same(LIQUIDATION_FIELDS), lastMs: 'last_ms', mask: 'venue_mask', present: null },
};

/** One served series: the JSON of its columns object (`{"open":[…],…}`, as JSON.stringify of layout.ts' columns) and its summary. */
export interface ServedSeries extends SeriesSummary {
  readonly json: string;
  /** `json` without its braces (for splicing the columns into a larger object). */
  readonly body: string;
  /** JSON array of the grid's bucket starts (epoch ms), as JSON.stringify(timestamps(grid)). */
  readonly timestamps: string;
}

export interface ServedBundle {
  readonly series: ReadonlyMap<SeriesName, ServedSeries | null>;
  readonly errors: Readonly<Partial<Record<SeriesName, string>>>;
}

/** JSON text of a number as JSON.stringify writes it (non-finite: null). */
const jsonNum = (v: number): string => (Number.isFinite(v) ? String(v) : 'null');

interface Rendered {
  /** The chunk's values as JSON, each followed by a comma. */
  readonly text: string;
  /** offs[j] = start of slot j in text; offs[CHUNK] = text.length. */
  readonly offs: Uint32Array;
}

class Chunk {
  /** 1 where the roll-up returned a row for the bucket. */
  readonly row = new Uint8Array(CHUNK);
  /** Per held result column: the value (NaN = NULL or non-finite, as layout.ts reads it: null). */
  readonly cols: Float64Array[];
  readonly rendered = new Map<string, Rendered>();
  textBytes = 0;

  constructor(columns: number) {
    this.cols = Array.from({ length: columns }, () => new Float64Array(CHUNK));
  }

  bytes(): number {
    return CHUNK * (1 + 8 * this.cols.length) + this.textBytes;
  }

  invalidate(): void {
    this.rendered.clear();
    this.textBytes = 0;
  }
}

/** The held rows of one roll-up statement for one (symbol, interval). Covered buckets: absolute slots [lo, hi). */
class Source {
  lo = 0;
  hi = 0;
  readonly chunks = new Map<number, Chunk>();
  /** The table's parts when the covered buckets were last made current; null: never read. */
  parts: TableParts | null = null;
  readonly colIndex: ReadonlyMap<string, number>;

  constructor(
    readonly def: SourceDef,
    readonly symbol: string,
    readonly interval: MarketInterval,
    readonly stepMs: number,
  ) {
    this.colIndex = new Map(def.columns.map((c, i) => [c, i]));
  }

  bytes(): number {
    let b = 0;
    for (const c of this.chunks.values()) b += c.bytes();
    return b;
  }

  reset(): void {
    this.chunks.clear();
    this.lo = 0;
    this.hi = 0;
    this.parts = null;
  }

  chunk(k: number): Chunk {
    let c = this.chunks.get(k);
    if (c === undefined) this.chunks.set(k, (c = new Chunk(this.def.columns.length)));
    return c;
  }

  col(name: string): number {
    const i = this.colIndex.get(name);
    if (i === undefined) throw new Error(`market serving: no column ${name}`);
    return i;
  }

  /** Clears the buckets [a, b) and writes the roll-up rows of that range. */
  apply(a: number, b: number, res: ColumnsResult): void {
    for (let k = Math.floor(a / CHUNK); k * CHUNK < b; k++) {
      const c = this.chunk(k);
      c.row.fill(0, Math.max(a - k * CHUNK, 0), Math.min(b - k * CHUNK, CHUNK));
      c.invalidate();
    }
    const t = resultColumn(res, 't');
    const cols = this.def.columns.map((n) => resultColumn(res, n));
    for (let r = 0; r < res.rows; r++) {
      const ms = numAt(t, r) * 1000;
      const slot = ms / this.stepMs;
      if (!Number.isInteger(slot) || slot < a || slot >= b) continue;
      const k = Math.floor(slot / CHUNK);
      const j = slot - k * CHUNK;
      const c = this.chunk(k);
      c.row[j] = 1;
      for (let i = 0; i < cols.length; i++) (c.cols[i] as Float64Array)[j] = numAt(cols[i] as ResultColumn, r);
    }
  }

  /** Drops the chunks below `lo`. */
  trim(lo: number): void {
    this.lo = lo;
    for (const k of this.chunks.keys()) if ((k + 1) * CHUNK <= lo) this.chunks.delete(k);
  }
}

function resultColumn(res: ColumnsResult, name: string): ResultColumn {
  const c = res.columns[name];
  if (c === undefined) throw new Error(`roll-up result has no column ${name}`);
  return c;
}

/** Row i as layout.ts reads it (NULL and non-finite -> NaN here, null there). */
function numAt(col: ResultColumn, i: number): number {
  let v: number;
  if (col.kind === 'number') {
    if (col.nulls !== null && col.nulls[i] === 1) return Number.NaN;
    v = col.values[i] as number;
  } else v = Number(cellAt(col, i) ?? Number.NaN);
  return Number.isFinite(v) ? v : Number.NaN;
}

/** A view's reading of one chunk: is slot j in the series, and the value of a held column there. */
function inSeries(c: Chunk, present: number, j: number): boolean {
  return c.row[j] === 1 && (present < 0 || (c.cols[present] as Float64Array)[j]! > 0);
}

/** Buckets a structure keeps for an interval: its largest window. */
const capacity = (interval: MarketInterval): number => pointsFor(interval, maxHoursFor(interval));

export class MarketServing {
  private readonly sources = new Map<string, Source>();
  private readonly locks = new Map<string, Promise<void>>();
  /** null: not checked yet; false: the state tables are not local MergeTree tables (cluster): roll-up path. */
  private local: boolean | null = null;

  constructor(private readonly maxBytes = MARKET_SERVING_MAX_BYTES) {}

  /** Estimated bytes held. */
  bytes(): number {
    let b = 0;
    for (const s of this.sources.values()) b += s.bytes();
    return b;
  }

  /** Number of (symbol, interval, table) structures held. */
  get size(): number {
    return this.sources.size;
  }

  async bundle(store: Store, grid: Grid, symbol: string, names: readonly SeriesName[]): Promise<ServedBundle> {
    if (!(await this.isLocal(store))) return fromRollUp(await readBundle(store, grid, symbol, names), grid);
    const views = names.map((n) => VIEWS[n]);
    const out = await this.serve(store, grid, symbol, views);
    const series = new Map<SeriesName, ServedSeries | null>();
    const errors: Partial<Record<SeriesName, string>> = {};
    const failures: unknown[] = [];
    names.forEach((n, i) => {
      const r = out[i] as ServedSeries | { readonly error: unknown };
      if ('error' in r) {
        series.set(n, null);
        errors[n] = reasonOf(r.error);
        failures.push(r.error);
      } else series.set(n, r);
    });
    if (failures.length === names.length && failures.some(isStoreUnavailable)) throw failures.find(isStoreUnavailable);
    return { series, errors };
  }

  async candles(store: Store, grid: Grid, symbol: string, market: TradeMarket): Promise<ServedSeries> {
    if (!(await this.isLocal(store))) return served(await readCandles(store, grid, symbol, market), grid);
    return single(await this.serve(store, grid, symbol, [candlesView(market === 'perp' ? 'perp' : 'spot')]));
  }

  async openInterest(store: Store, grid: Grid, symbol: string): Promise<ServedSeries> {
    if (!(await this.isLocal(store))) return served(await readOpenInterest(store, grid, symbol), grid);
    return single(await this.serve(store, grid, symbol, [OI_VIEW]));
  }

  private async isLocal(store: Store): Promise<boolean> {
    if (this.local !== null) return this.local;
    try {
      const tables = FAMILIES.flatMap((f) => ['1m', '1h', '1d'].map((t) => `${f}_${t}`));
      const rows = await store.query<{ engine: string }>(
        'SELECT engine FROM system.tables WHERE database = currentDatabase() AND name IN {tables:Array(String)}',
        { tables },
      );
      // Decided once every state table exists (before the migrations ran: roll-up path, asked again next time).
      const local = rows.every((r) => r.engine.endsWith('MergeTree'));
      if (rows.length === tables.length || !local) this.local = local;
      return local && rows.length === tables.length;
    } catch {
      return false; // checked again on the next request; the roll-up path reports the store's state
    }
  }

  /** Refreshes the sources of `views` and renders each view on the grid (or its error), under the (symbol, tier) lock. */
  private serve(store: Store, grid: Grid, symbol: string, views: readonly View[]): Promise<(ServedSeries | { readonly error: unknown })[]> {
    const tier = tierFor(INTERVAL_MINUTES[grid.interval]);
    return this.locked(`${symbol}|${tier}`, async () => {
      const kinds = [...new Set(views.map((v) => v.source))];
      const sources = kinds.map((k) => this.source(symbol, grid, k));
      let snapshot: PartsSnapshot;
      try {
        snapshot = await readParts(store, [...new Set(sources.map((s) => `${s.def.family}_${tier}`))]);
      } catch (error) {
        return views.map(() => ({ error }));
      }
      const settled = await Promise.allSettled(sources.map((s) => refresh(store, s, grid, tier, snapshot)));
      const failed = new Map<SourceKind, unknown>();
      settled.forEach((r, i) => {
        if (r.status === 'rejected') failed.set(kinds[i] as SourceKind, r.reason);
      });
      // Rendered synchronously after the last await: no other refresh of these sources interleaves.
      const out = views.map((v) => {
        const err = failed.get(v.source);
        if (err !== undefined) return { error: err };
        return render(sources[kinds.indexOf(v.source)] as Source, grid, v);
      });
      this.evict();
      return out;
    });
  }

  private source(symbol: string, grid: Grid, kind: SourceKind): Source {
    const key = `${symbol}|${grid.interval}|${kind}`;
    let s = this.sources.get(key);
    if (s === undefined) s = new Source(SOURCES[kind], symbol, grid.interval, grid.stepMs);
    else this.sources.delete(key); // re-inserted last: Map order = least recently used first
    this.sources.set(key, s);
    return s;
  }

  private evict(): void {
    let total = this.bytes();
    for (const [key, s] of this.sources) {
      if (total <= this.maxBytes) break;
      total -= s.bytes();
      this.sources.delete(key);
    }
  }

  private async locked<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const prev = this.locks.get(key) ?? Promise.resolve();
    let release = (): void => {};
    const mine = new Promise<void>((r) => (release = r));
    const tail = prev.then(() => mine);
    this.locks.set(key, tail);
    await prev;
    try {
      return await fn();
    } finally {
      release();
      if (this.locks.get(key) === tail) this.locks.delete(key);
    }
  }
}

/**
 * Makes the source's buckets of the grid current: reads, as one roll-up statement over their hull, the covered
 * buckets overlapped by a part that appeared or disappeared since the last read, and the grid's buckets not
 * covered yet. The snapshot is taken before the read: a part written during it is seen as new next time.
 */
async function refresh(store: Store, s: Source, grid: Grid, tier: Tier, snapshot: PartsSnapshot): Promise<void> {
  const step = grid.stepMs;
  const g0 = grid.fromMs / step;
  const g1 = grid.toMs / step;
  if (g1 <= g0) return;
  const table = `${s.def.family}_${tier}`;
  const parts: TableParts = snapshot.get(table) ?? new Map();
  const cap = capacity(grid.interval);
  let a = Number.POSITIVE_INFINITY;
  let b = Number.NEGATIVE_INFINITY;
  const span = (x: number, y: number): void => {
    if (y <= x) return;
    a = Math.min(a, x);
    b = Math.max(b, y);
  };
  const fresh = s.parts === null || s.hi <= s.lo || g0 > s.hi || g1 < s.lo || g0 < Math.max(s.hi, g1) - cap;
  if (fresh) {
    s.reset();
    span(g0, g1);
  } else {
    for (const r of changedRanges(s.parts ?? new Map(), parts)) {
      span(Math.max(Math.floor((r.fromS * 1000) / step), s.lo), Math.min(Math.floor((r.toS * 1000) / step) + 1, s.hi));
    }
    span(g0, s.lo);
    span(s.hi, g1);
  }
  if (b > a) {
    const res = await store.queryColumns(s.def.sql[tier], {
      ...s.def.params,
      symbol: s.symbol,
      m: INTERVAL_MINUTES[grid.interval],
      from: (a * step) / 1000,
      to: (b * step) / 1000,
    });
    s.apply(a, b, res);
  }
  if (fresh) {
    s.lo = g0;
    s.hi = g1;
  } else {
    s.lo = Math.min(s.lo, g0);
    s.hi = Math.max(s.hi, g1);
  }
  s.parts = parts;
  if (s.hi - s.lo > cap) s.trim(s.hi - cap);
}

/** The JSON of one held column of a chunk for a view (rendered once per chunk until its buckets are rewritten). */
function renderedColumn(c: Chunk, key: string, value: (j: number) => string): Rendered {
  let r = c.rendered.get(key);
  if (r !== undefined) return r;
  const texts: string[] = new Array<string>(CHUNK);
  const offs = new Uint32Array(CHUNK + 1);
  let at = 0;
  for (let j = 0; j < CHUNK; j++) {
    const t = value(j);
    texts[j] = t;
    offs[j] = at;
    at += t.length + 1;
  }
  offs[CHUNK] = at;
  r = { text: `${texts.join(',')},`, offs };
  c.rendered.set(key, r);
  c.textBytes += at + 4 * (CHUNK + 1);
  return r;
}

/**
 * JSON array of a column over the slots [a, b), cut from the chunks' rendered text: slices of the cached text
 * concatenated as a rope (no copy here; the response is flattened once when it is written).
 */
function columnJson(s: Source, a: number, b: number, key: string, value: (c: Chunk, k: number) => (j: number) => string): string {
  if (b <= a) return '[]';
  let json = '[';
  for (let k = Math.floor(a / CHUNK); k * CHUNK < b; k++) {
    const c = s.chunk(k);
    const r = renderedColumn(c, key, value(c, k));
    const lo = Math.max(a - k * CHUNK, 0);
    const last = b - k * CHUNK <= CHUNK;
    const hi = last ? b - k * CHUNK : CHUNK;
    // Every value is followed by a comma: the last piece ends before its final one.
    json += r.text.slice(r.offs[lo], (r.offs[hi] as number) - (last ? 1 : 0));
  }
  return `${json}]`;
}

/** One view of a source on the grid: columns JSON (layout.ts' values, JSON.stringify's text) and the summary. */
function render(s: Source, grid: Grid, v: View): ServedSeries {
  const a = grid.fromMs / s.stepMs;
  const b = grid.toMs / s.stepMs;
  const present = v.present === null ? -1 : s.col(v.present);
  const last = s.col(v.lastMs);
  const mask = s.col(v.mask);
  // Summary: buckets in the series, their venues, first bucket, newest event.
  let coverage = 0;
  let bits = 0;
  let firstMs: number | null = null;
  let lastMs: number | null = null;
  for (let k = Math.floor(a / CHUNK); k * CHUNK < b; k++) {
    const c = s.chunk(k);
    const row = c.row;
    const pres = present < 0 ? null : (c.cols[present] as Float64Array);
    const lastCol = c.cols[last] as Float64Array;
    const maskCol = c.cols[mask] as Float64Array;
    const hi = Math.min(b - k * CHUNK, CHUNK);
    for (let j = Math.max(a - k * CHUNK, 0); j < hi; j++) {
      if (row[j] !== 1 || (pres !== null && !((pres[j] as number) > 0))) continue;
      coverage++;
      if (firstMs === null) firstMs = (k * CHUNK + j) * s.stepMs;
      const l = lastCol[j] as number;
      if (l === l && (lastMs === null || l > lastMs)) lastMs = l;
      const m = maskCol[j] as number;
      if (m === m) bits |= m;
    }
  }
  const pkey = v.present ?? '';
  let body = '';
  for (const oc of v.columns) {
    let json: string;
    if ('col' in oc) {
      const i = s.col(oc.col);
      json = columnJson(
        s,
        a,
        b,
        `${pkey}:${oc.col}`,
        (c) => (j) => (inSeries(c, present, j) ? jsonNum((c.cols[i] as Float64Array)[j] as number) : 'null'),
      );
    } else if (oc.derived === 'delta') {
      const buy = s.col('buy_volume');
      const sell = s.col('sell_volume');
      json = columnJson(s, a, b, `${pkey}:delta`, (c) => (j) => {
        const bv = (c.cols[buy] as Float64Array)[j] as number;
        const sv = (c.cols[sell] as Float64Array)[j] as number;
        return inSeries(c, present, j) && !Number.isNaN(bv) && !Number.isNaN(sv) ? jsonNum(bv - sv) : 'null';
      });
    } else json = cvdJson(s, a, b, present);
    body += `${body === '' ? '' : ','}${JSON.stringify(oc.out)}:${json}`;
  }
  const step = s.stepMs;
  const timestamps = columnJson(s, a, b, 'timestamps', (_c, k) => (j) => String((k * CHUNK + j) * step));
  return { json: `{${body}}`, body, timestamps, coverage, sources: [...new Set(venuesOfMask(bits))].sort(), firstMs, lastMs };
}

/** Running sum of delta from the window's first bucket (series.ts cvdOf: a bucket without trades is null, the sum resumes). */
function cvdJson(s: Source, a: number, b: number, present: number): string {
  const buy = s.col('buy_volume');
  const sell = s.col('sell_volume');
  const out: string[] = new Array<string>(Math.max(0, b - a));
  let running = 0;
  let at = 0;
  for (let k = Math.floor(a / CHUNK); k * CHUNK < b; k++) {
    const c = s.chunk(k);
    const row = c.row;
    const pres = present < 0 ? null : (c.cols[present] as Float64Array);
    const bc = c.cols[buy] as Float64Array;
    const sc = c.cols[sell] as Float64Array;
    const hi = Math.min(b - k * CHUNK, CHUNK);
    for (let j = Math.max(a - k * CHUNK, 0); j < hi; j++) {
      const bv = bc[j] as number;
      const sv = sc[j] as number;
      if (row[j] !== 1 || (pres !== null && !((pres[j] as number) > 0)) || bv !== bv || sv !== sv) {
        out[at++] = 'null';
        continue;
      }
      running += bv - sv;
      out[at++] = jsonNum(running);
    }
  }
  return `[${out.join(',')}]`;
}

/** JSON array of the grid's bucket starts (epoch ms), as JSON.stringify(timestamps(grid)). */
export function timestampsJson(grid: Grid): string {
  const out = new Array<string>(grid.points);
  for (let i = 0; i < grid.points; i++) out[i] = String(grid.fromMs + i * grid.stepMs);
  return `[${out.join(',')}]`;
}

/** A series of the roll-up path in the served form. */
export function served(s: SeriesData, grid: Grid): ServedSeries {
  const json = JSON.stringify(s.columns);
  return {
    json,
    body: json.slice(1, -1),
    timestamps: timestampsJson(grid),
    coverage: s.coverage,
    sources: s.sources,
    firstMs: s.firstMs,
    lastMs: s.lastMs,
  };
}

function fromRollUp(b: Awaited<ReturnType<typeof readBundle>>, grid: Grid): ServedBundle {
  const series = new Map<SeriesName, ServedSeries | null>();
  for (const [n, s] of b.series) series.set(n, s === null ? null : served(s, grid));
  return { series, errors: b.errors };
}

function single(out: readonly (ServedSeries | { readonly error: unknown })[]): ServedSeries {
  const r = out[0] as ServedSeries | { readonly error: unknown };
  if ('error' in r) throw r.error;
  return r;
}
