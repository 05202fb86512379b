/** Binance listings: eapi `/eapi/v1/exchangeInfo` (options, `unit` coins per contract) and fapi `/fapi/v1/exchangeInfo` (perps). */
import { expiryFromYymmdd, optionTypeFrom, strikeFrom } from '../../connector/option-names.ts';
import { arr, isObj, num, parseJson, str, symbolForBase } from '../../connector/parse-helpers.ts';
import type { Instrument, MarketEvent } from '#schemas/events.ts';
import type { RestParseResult } from '../../connector/types.ts';

const VENUE = 'binance';

/** BTC-251219-89000-C / XRP-251219-2.05-P. */
export function parseBinanceOptionName(name: string): { base: string; expiry: number; strike: number; optionType: 'call' | 'put' } | null {
  const p = name.split('-');
  if (p.length !== 4) return null;
  const expiry = expiryFromYymmdd(p[1] ?? '');
  const strike = strikeFrom(p[2] ?? '');
  const optionType = optionTypeFrom(p[3] ?? '');
  if (expiry === null || strike === null || optionType === null) return null;
  return { base: p[0] ?? '', expiry, strike, optionType };
}

/** Name fallback: options (unit 1, USDT-quoted) and USDT/USDC perps (BTCUSDT). */
export function binanceInstrumentFromName(name: string, receivedAt: number): Instrument | null {
  const common = {
    venue: VENUE,
    ts: receivedAt,
    receivedAt,
    id: `${VENUE}:instrument:${name}`,
    instrument: name,
    contractSize: 1,
    active: true,
  } as const;
  const o = parseBinanceOptionName(name);
  if (o !== null) {
    const symbol = symbolForBase(o.base);
    return symbol === null
      ? null
      : {
          ...common,
          symbol,
          kind: 'option',
          strike: o.strike,
          expiry: o.expiry,
          optionType: o.optionType,
          settlementCurrency: 'USDT',
          quoteCurrency: 'USDT',
        };
  }
  const m = /^([A-Z0-9]+?)(USDT|USDC)$/.exec(name);
  const symbol = m === null ? null : symbolForBase(m[1] ?? '');
  if (m === null || symbol === null) return null;
  return {
    ...common,
    symbol,
    kind: 'perp',
    strike: null,
    expiry: null,
    optionType: null,
    settlementCurrency: m[2] ?? 'USDT',
    quoteCurrency: m[2] ?? 'USDT',
  };
}

export function parseBinanceOptionsInfo(body: string, receivedAt: number): RestParseResult {
  const msg = parseJson(body);
  if (!isObj(msg)) return { ok: false, reason: 'malformed json' };
  const list = arr(msg, 'optionSymbols');
  if (list === null) return { ok: false, reason: 'missing optionSymbols' };
  const out: MarketEvent[] = [];
  for (const item of list) {
    if (!isObj(item)) return { ok: false, reason: 'optionSymbol is not an object' };
    const name = str(item, 'symbol');
    const underlying = str(item, 'underlying');
    if (name === null || underlying === null) return { ok: false, reason: 'optionSymbol missing symbol/underlying' };
    const symbol = symbolForBase(underlying.replace(/USDT$|USDC$/, ''));
    if (symbol === null) continue;
    const parsed = parseBinanceOptionName(name);
    const side = str(item, 'side');
    const quote = str(item, 'quoteAsset') ?? 'USDT';
    out.push({
      type: 'instrument',
      event: {
        venue: VENUE,
        symbol,
        ts: receivedAt,
        receivedAt,
        id: `${VENUE}:instrument:${name}`,
        instrument: name,
        kind: 'option',
        strike: num(item, 'strikePrice') ?? parsed?.strike ?? null,
        expiry: num(item, 'expiryDate') ?? parsed?.expiry ?? null,
        optionType: side === 'CALL' ? 'call' : side === 'PUT' ? 'put' : (parsed?.optionType ?? null),
        contractSize: num(item, 'unit') ?? 1,
        settlementCurrency: quote,
        quoteCurrency: quote,
        active: str(item, 'status') === 'TRADING',
      },
    });
  }
  return { ok: true, events: out, nextUrl: null };
}

export function parseBinancePerpsInfo(body: string, receivedAt: number): RestParseResult {
  const msg = parseJson(body);
  if (!isObj(msg)) return { ok: false, reason: 'malformed json' };
  const list = arr(msg, 'symbols');
  if (list === null) return { ok: false, reason: 'missing symbols' };
  const out: MarketEvent[] = [];
  for (const item of list) {
    if (!isObj(item)) return { ok: false, reason: 'symbol is not an object' };
    const name = str(item, 'symbol');
    const base = str(item, 'baseAsset');
    const quote = str(item, 'quoteAsset');
    if (name === null || base === null || quote === null) return { ok: false, reason: 'symbol missing symbol/baseAsset/quoteAsset' };
    const symbol = symbolForBase(base);
    if (symbol === null || str(item, 'contractType') !== 'PERPETUAL' || quote !== 'USDT') continue;
    out.push({
      type: 'instrument',
      event: {
        venue: VENUE,
        symbol,
        ts: num(item, 'onboardDate') ?? receivedAt,
        receivedAt,
        id: `${VENUE}:instrument:${name}`,
        instrument: name,
        kind: 'perp',
        strike: null,
        expiry: null,
        optionType: null,
        contractSize: 1,
        settlementCurrency: str(item, 'marginAsset') ?? quote,
        quoteCurrency: quote,
        active: str(item, 'status') === 'TRADING',
      },
    });
  }
  return { ok: true, events: out, nextUrl: null };
}
