import type { FastifyBaseLogger } from 'fastify';
import { isStoreUnavailable } from '#clickhouse/errors.ts';
import type { Store } from '#clickhouse/store.ts';
import { RAW_TABLES, type RawTable } from './categories.ts';
import { TtlCache } from '../cache/ttl-cache.ts';
import { msParam, msText } from '#clickhouse/epoch-ms.ts';

export interface TableCoverage {
  readonly firstMs: number;
  readonly lastMs: number;
}

/** table -> symbol -> first/last ts. */
export type Coverage = ReadonlyMap<RawTable, ReadonlyMap<string, TableCoverage>>;

export interface SpotQuote {
  readonly price: number;
  readonly ts: number;
  readonly source: 'index' | 'option_tickers' | 'perp_trades';
}

export interface ExpiryRow {
  readonly symbol: string;
  readonly venue: string;
  readonly expiryMs: number;
  readonly instruments: number;
}

interface CoverageRow {
  readonly symbol: string;
  readonly first_ms: string;
  readonly last_ms: string;
}

// One literal statement per table (table names cannot be query parameters; these are constants).
const COVERAGE_SQL: Readonly<Record<RawTable, string>> = {
  option_tickers: `SELECT symbol, ${msText('min(ts)')} AS first_ms, ${msText('max(ts)')} AS last_ms FROM option_tickers GROUP BY symbol`,
  option_trades: `SELECT symbol, ${msText('min(ts)')} AS first_ms, ${msText('max(ts)')} AS last_ms FROM option_trades GROUP BY symbol`,
  instruments: `SELECT symbol, ${msText('min(ts)')} AS first_ms, ${msText('max(ts)')} AS last_ms FROM instruments GROUP BY symbol`,
  perp_trades: `SELECT symbol, ${msText('min(ts)')} AS first_ms, ${msText('max(ts)')} AS last_ms FROM perp_trades GROUP BY symbol`,
  spot_trades: `SELECT symbol, ${msText('min(ts)')} AS first_ms, ${msText('max(ts)')} AS last_ms FROM spot_trades GROUP BY symbol`,
  perp_stats: `SELECT symbol, ${msText('min(ts)')} AS first_ms, ${msText('max(ts)')} AS last_ms FROM perp_stats GROUP BY symbol`,
  liquidations: `SELECT symbol, ${msText('min(ts)')} AS first_ms, ${msText('max(ts)')} AS last_ms FROM liquidations GROUP BY symbol`,
  index_prices: `SELECT symbol, ${msText('min(ts)')} AS first_ms, ${msText('max(ts)')} AS last_ms FROM index_prices GROUP BY symbol`,
};

const SPOT_SQL = [
  {
    source: 'index',
    sql: `SELECT symbol, argMax(value, ts) AS price, ${msText('max(ts)')} AS ts_ms FROM index_prices
WHERE kind = 'index' AND ts >= ${msParam('since')} GROUP BY symbol`,
  },
  {
    source: 'option_tickers',
    sql: `SELECT symbol, argMax(assumeNotNull(index_price), ts) AS price, ${msText('max(ts)')} AS ts_ms FROM option_tickers
WHERE index_price IS NOT NULL AND ts >= ${msParam('since')} GROUP BY symbol`,
  },
  {
    source: 'perp_trades',
    sql: `SELECT symbol, argMax(price, ts) AS price, ${msText('max(ts)')} AS ts_ms FROM perp_trades
WHERE ts >= ${msParam('since')} GROUP BY symbol`,
  },
] as const;

const EXPIRIES_SQL = `SELECT symbol, venue, ${msText('assumeNotNull(expiry)')} AS expiry_ms, toString(count()) AS n
FROM instruments FINAL
WHERE kind = 'option' AND active AND expiry IS NOT NULL AND expiry > ${msParam('now')}
GROUP BY symbol, venue, expiry ORDER BY expiry, symbol, venue`;

/** Fallback when no instruments were recorded: expiries quoted in the last hour of option tickers. */
const TICKER_EXPIRIES_SQL = `SELECT symbol, venue, ${msText('expiry')} AS expiry_ms, toString(uniqExact(instrument)) AS n
FROM option_tickers
WHERE ts >= ${msParam('since')} AND expiry > ${msParam('now')}
GROUP BY symbol, venue, expiry ORDER BY expiry, symbol, venue`;

const SPOT_LOOKBACK_MS = 86_400_000;
const TICKER_EXPIRY_LOOKBACK_MS = 3_600_000;

/**
 * Read-only queries behind the discovery routes, cached for DISCOVERY_CACHE_MS. Missing tables or a failing
 * query degrade to "no data" (logged); an unreachable store is an error (-> 503).
 */
export class MarketData {
  private readonly coverageCache: TtlCache<Coverage>;
  private readonly spotCache: TtlCache<ReadonlyMap<string, SpotQuote>>;
  private readonly expiryCache: TtlCache<readonly ExpiryRow[]>;

  constructor(
    private readonly store: Store,
    private readonly clock: () => number,
    private readonly log: FastifyBaseLogger,
    cacheMs: number,
  ) {
    this.coverageCache = new TtlCache({ ttlMs: cacheMs, clock });
    this.spotCache = new TtlCache({ ttlMs: cacheMs, clock });
    this.expiryCache = new TtlCache({ ttlMs: cacheMs, clock });
  }

  private async safeQuery<T>(what: string, sql: string, params: Record<string, unknown> = {}): Promise<T[]> {
    try {
      return await this.store.query<T>(sql, params);
    } catch (err) {
      if (isStoreUnavailable(err)) throw err;
      this.log.warn({ what, err: err instanceof Error ? err.message : String(err) }, 'discovery query failed; reporting no data');
      return [];
    }
  }

  coverage(): Promise<Coverage> {
    return this.coverageCache.get('all', async () => {
      const results = await Promise.all(RAW_TABLES.map((t) => this.safeQuery<CoverageRow>(t, COVERAGE_SQL[t])));
      const out = new Map<RawTable, Map<string, TableCoverage>>();
      RAW_TABLES.forEach((t, i) => {
        const bySymbol = new Map<string, TableCoverage>();
        for (const r of results[i] ?? []) bySymbol.set(r.symbol, { firstMs: Number(r.first_ms), lastMs: Number(r.last_ms) });
        out.set(t, bySymbol);
      });
      return out;
    });
  }

  spot(): Promise<ReadonlyMap<string, SpotQuote>> {
    return this.spotCache.get('all', async () => {
      const since = this.clock() - SPOT_LOOKBACK_MS;
      const results = await Promise.all(
        SPOT_SQL.map((s) => this.safeQuery<{ symbol: string; price: number; ts_ms: string }>(s.source, s.sql, { since })),
      );
      const out = new Map<string, SpotQuote>();
      SPOT_SQL.forEach((s, i) => {
        for (const r of results[i] ?? []) {
          if (!out.has(r.symbol) && Number.isFinite(r.price) && r.price > 0)
            out.set(r.symbol, { price: r.price, ts: Number(r.ts_ms), source: s.source });
        }
      });
      return out;
    });
  }

  expiries(): Promise<readonly ExpiryRow[]> {
    return this.expiryCache.get('all', async () => {
      const now = this.clock();
      const toRow = (r: { symbol: string; venue: string; expiry_ms: string; n: string }): ExpiryRow => ({
        symbol: r.symbol,
        venue: r.venue,
        expiryMs: Number(r.expiry_ms),
        instruments: Number(r.n),
      });
      const rows = (
        await this.safeQuery<{ symbol: string; venue: string; expiry_ms: string; n: string }>('expiries', EXPIRIES_SQL, { now })
      ).map(toRow);
      const covered = new Set(rows.map((r) => r.symbol));
      const fallback = (
        await this.safeQuery<{ symbol: string; venue: string; expiry_ms: string; n: string }>('ticker expiries', TICKER_EXPIRIES_SQL, {
          now,
          since: now - TICKER_EXPIRY_LOOKBACK_MS,
        })
      )
        .map(toRow)
        .filter((r) => !covered.has(r.symbol));
      return [...rows, ...fallback].sort((a, b) => a.expiryMs - b.expiryMs || a.symbol.localeCompare(b.symbol));
    });
  }
}
