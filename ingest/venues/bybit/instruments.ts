/** Bybit V5 `/v5/market/instruments-info` listing (option, linear, spot) and the name fallback. */
import { arr, isObj, num, obj, parseJson, str, symbolForBase } from '../../connector/parse-helpers.ts';
import type { Instrument, InstrumentKind, MarketEvent } from '#schemas/events.ts';
import type { RestParseResult } from '../../connector/types.ts';
import { bybitLinearBase, parseBybitOptionName } from './names.ts';

const VENUE = 'bybit';

/** Name fallback. Options: contract = 1 coin. A plain pair name is taken as a linear perp. */
export function bybitInstrumentFromName(name: string, receivedAt: number): Instrument | null {
  const o = parseBybitOptionName(name);
  const common = {
    venue: VENUE,
    ts: receivedAt,
    receivedAt,
    id: `${VENUE}:instrument:${name}`,
    instrument: name,
    contractSize: 1,
    active: true,
  } as const;
  if (o !== null) {
    const symbol = symbolForBase(o.base);
    if (symbol === null) return null;
    return {
      ...common,
      symbol,
      kind: 'option',
      strike: o.strike,
      expiry: o.expiry,
      optionType: o.optionType,
      settlementCurrency: o.settle,
      quoteCurrency: o.settle,
    };
  }
  const l = bybitLinearBase(name);
  const symbol = l === null ? null : symbolForBase(l.base);
  if (l === null || symbol === null) return null;
  return {
    ...common,
    symbol,
    kind: 'perp',
    strike: null,
    expiry: null,
    optionType: null,
    settlementCurrency: l.quote,
    quoteCurrency: l.quote,
  };
}

function kindOf(category: string, item: Record<string, unknown>): InstrumentKind | null {
  if (category === 'option' || typeof item['optionsType'] === 'string') return 'option';
  const ct = typeof item['contractType'] === 'string' ? item['contractType'] : null;
  if (ct === 'LinearPerpetual') return 'perp';
  if (ct === 'LinearFutures') return 'future';
  if (ct !== null) return null; // inverse
  return category === 'spot' ? 'spot' : null;
}

/** Parses one page; `nextUrl` follows `nextPageCursor` by appending `cursor=` to `url`. */
export function parseBybitInstruments(body: string, url: string, receivedAt: number): RestParseResult {
  const msg = parseJson(body);
  if (!isObj(msg)) return { ok: false, reason: 'malformed json' };
  if (num(msg, 'retCode') !== 0) return { ok: false, reason: `venue error: ${String(msg['retCode'])} ${str(msg, 'retMsg') ?? ''}` };
  const result = obj(msg, 'result');
  const list = result === null ? null : arr(result, 'list');
  if (result === null || list === null) return { ok: false, reason: 'missing result.list' };
  const category = str(result, 'category') ?? '';
  const out: MarketEvent[] = [];
  for (const item of list) {
    if (!isObj(item)) return { ok: false, reason: 'instrument is not an object' };
    const name = str(item, 'symbol');
    const base = str(item, 'baseCoin');
    if (name === null || base === null) return { ok: false, reason: 'instrument missing symbol/baseCoin' };
    const symbol = symbolForBase(base);
    const kind = kindOf(category, item);
    if (symbol === null || kind === null) continue;
    const quote = str(item, 'quoteCoin') ?? 'USDT';
    const settle = str(item, 'settleCoin') ?? quote;
    const parsed = kind === 'option' ? parseBybitOptionName(name) : null;
    if (kind === 'option' && parsed === null) return { ok: false, reason: `unparseable option symbol: ${name}` };
    const optionsType = str(item, 'optionsType');
    const delivery = num(item, 'deliveryTime');
    out.push({
      type: 'instrument',
      event: {
        venue: VENUE,
        symbol,
        ts: num(item, 'launchTime') ?? receivedAt,
        receivedAt,
        // spot BTCUSDT and the linear perp BTCUSDT share the name; keep their ids apart
        id: kind === 'spot' ? `${VENUE}:instrument:spot:${name}` : `${VENUE}:instrument:${name}`,
        instrument: name,
        kind,
        strike: parsed?.strike ?? null,
        expiry: kind === 'option' || kind === 'future' ? (delivery !== null && delivery > 0 ? delivery : (parsed?.expiry ?? null)) : null,
        optionType: optionsType === 'Call' ? 'call' : optionsType === 'Put' ? 'put' : null,
        contractSize: 1,
        settlementCurrency: settle,
        quoteCurrency: kind === 'option' ? settle : quote,
        active: str(item, 'status') === 'Trading',
      },
    });
  }
  const cursor = str(result, 'nextPageCursor');
  const nextUrl = cursor === null || cursor === '' ? null : `${url.replace(/&cursor=[^&]*/, '')}&cursor=${encodeURIComponent(cursor)}`;
  return { ok: true, events: out, nextUrl };
}
