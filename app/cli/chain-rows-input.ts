/**
 * The `--rows FILE` input of `gex chain`: the stored rows of one consolidated chain (option_chain_snapshots*) as
 * `gex sql "SELECT * FROM option_chain_snapshots WHERE symbol = 'BTCUSDT' AND computed_at = '…' FORMAT JSONEachRow"`
 * prints them (JSON lines; a JSON array is accepted too). Times as ClickHouse text ('2026-11-20 12:00:00.000', UTC),
 * ISO-8601 or epoch ms; numbers as JSON numbers or numeric strings; null where the column is null. Every row must
 * belong to one (symbol, computed_at). Errors name the line and the field.
 */
import { readFileSync } from 'node:fs';
import type { ContractTrades } from '#processors/analytics/chain-trades.ts';
import type { OptionChainRow } from '#processors/snapshots/option-chain.ts';
import { SYMBOLS } from '#schemas/events.ts';
import type { MarketSymbol } from '#schemas/events.ts';

const NUMBER_FIELDS = ['spot', 'strike', 't_years', 'forward', 'open_interest'] as const;
const NULLABLE_FIELDS = [
  'perp_price',
  'bid_price_usd',
  'ask_price_usd',
  'bid_size',
  'ask_size',
  'mark_price_usd',
  'last_price_usd',
  'mark_iv',
  'bid_iv',
  'ask_iv',
  'delta',
  'gamma',
  'vega',
  'theta',
  'volume_24h',
  'dealer_inventory',
] as const;
const SOURCES = ['delta_source', 'gamma_source', 'vega_source', 'theta_source'] as const;

export interface ChainRowsFile {
  readonly symbol: MarketSymbol;
  readonly t: number;
  readonly rows: readonly OptionChainRow[];
}

function timeOf(v: unknown): number | null {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v !== 'string') return null;
  if (/^-?\d{1,15}$/.test(v)) return Number(v);
  const ch = /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2}(\.\d{1,9})?)$/.exec(v);
  const ms = Date.parse(ch === null ? v : `${ch[1]}T${ch[2]}Z`);
  return Number.isFinite(ms) ? ms : null;
}

function numberOf(v: unknown): number | null {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return Number(v);
  return null;
}

function rowOf(o: Record<string, unknown>, where: string): OptionChainRow {
  const fail = (field: string): never => {
    throw new Error(`${where}: field ${field} is missing or invalid (${JSON.stringify(o[field])})`);
  };
  const symbol = o.symbol;
  if (typeof symbol !== 'string' || !(SYMBOLS as readonly string[]).includes(symbol)) fail('symbol');
  const type = o.option_type;
  if (type !== 'call' && type !== 'put') fail('option_type');
  for (const f of ['venue', 'instrument'] as const) if (typeof o[f] !== 'string' || o[f] === '') fail(f);
  const times: Record<string, number> = {};
  for (const f of ['computed_at', 'expiry', 'ticker_ts'] as const) times[f] = timeOf(o[f]) ?? fail(f);
  const numbers: Record<string, number> = {};
  for (const f of NUMBER_FIELDS) numbers[f] = numberOf(o[f]) ?? fail(f);
  const nullable: Record<string, number | null> = {};
  for (const f of NULLABLE_FIELDS) nullable[f] = o[f] === null || o[f] === undefined ? null : (numberOf(o[f]) ?? fail(f));
  const sources: Record<string, 'none' | 'venue' | 'computed'> = {};
  for (const f of SOURCES) {
    const s = o[f] ?? 'none';
    if (s !== 'none' && s !== 'venue' && s !== 'computed') fail(f);
    sources[f] = s as 'none' | 'venue' | 'computed';
  }
  return {
    ...(numbers as Pick<OptionChainRow, (typeof NUMBER_FIELDS)[number]>),
    ...(nullable as Pick<OptionChainRow, (typeof NULLABLE_FIELDS)[number]>),
    ...(sources as Pick<OptionChainRow, (typeof SOURCES)[number]>),
    symbol: symbol as MarketSymbol,
    venue: o.venue as string,
    instrument: o.instrument as string,
    option_type: type as 'call' | 'put',
    computed_at: times.computed_at as number,
    expiry: times.expiry as number,
    ticker_ts: times.ticker_ts as number,
  };
}

/** The rows of the file, or an Error naming what is wrong. */
export function parseChainRows(text: string): ChainRowsFile {
  const trimmed = text.trim();
  const objects: unknown[] = trimmed.startsWith('[')
    ? (JSON.parse(trimmed) as unknown[])
    : trimmed
        .split('\n')
        .filter((l) => l.trim() !== '')
        .map((l, i) => {
          try {
            return JSON.parse(l) as unknown;
          } catch {
            throw new Error(`line ${i + 1}: not JSON`);
          }
        });
  if (objects.length === 0) throw new Error('no rows');
  const rows = objects.map((o, i) => {
    if (typeof o !== 'object' || o === null || Array.isArray(o)) throw new Error(`row ${i + 1}: not an object`);
    return rowOf(o as Record<string, unknown>, `row ${i + 1}`);
  });
  const first = rows[0] as OptionChainRow;
  const other = rows.find((r) => r.symbol !== first.symbol || r.computed_at !== first.computed_at);
  if (other !== undefined)
    throw new Error(
      `rows of more than one chain: ${first.symbol} at ${new Date(first.computed_at).toISOString()} and ${other.symbol} at ${new Date(other.computed_at).toISOString()}`,
    );
  return { symbol: first.symbol, t: first.computed_at, rows };
}

export function readChainRowsFile(path: string): ChainRowsFile {
  return parseChainRows(readFileSync(path, 'utf8'));
}

/**
 * The `--trades FILE` input of `gex chain`: per venue contract the trades and premium paid in the chain's trade
 * window (processors/analytics/chain-trades.ts), as `gex sql` prints the statement in query-api/README.md
 * ("Chain trade figures") in FORMAT JSONEachRow (fields venue, expiry_ms or expiry, strike, option_type, trade_count, notional_volume).
 */
export function parseChainTrades(text: string): ContractTrades[] {
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l, i) => {
      let o: Record<string, unknown>;
      try {
        o = JSON.parse(l) as Record<string, unknown>;
      } catch {
        throw new Error(`trades line ${i + 1}: not JSON`);
      }
      const fail = (field: string): never => {
        throw new Error(`trades line ${i + 1}: field ${field} is missing or invalid (${JSON.stringify(o[field])})`);
      };
      const type = o.option_type;
      if (type !== 'call' && type !== 'put') fail('option_type');
      if (typeof o.venue !== 'string' || o.venue === '') fail('venue');
      return {
        venue: o.venue as string,
        expiry: timeOf(o.expiry_ms ?? o.expiry) ?? fail('expiry_ms'),
        strike: numberOf(o.strike) ?? fail('strike'),
        option_type: type as 'call' | 'put',
        trade_count: numberOf(o.trade_count) ?? fail('trade_count'),
        notional_volume: numberOf(o.notional_volume) ?? fail('notional_volume'),
      };
    });
}

export function readChainTradesFile(path: string): ContractTrades[] {
  return parseChainTrades(readFileSync(path, 'utf8'));
}
