/**
 * Bullish `GET /trading-api/v1/markets` -> Instrument (options and perpetuals). Quantities are base units ×
 * `contractMultiplier` ("1"); option expiry is `expiryDatetime` (08:00 UTC). Names: BTC-USDC-20260130-160000-P,
 * perps BTC-USDC-PERP; spot pairs (BTCUSDC) are not tracked.
 */
import { isObj, num, parseJson, str, symbolForBase } from '../../connector/parse-helpers.ts';
import type { Instrument, InstrumentKind, MarketEvent } from '#schemas/events.ts';
import type { RestParseResult } from '../../connector/types.ts';

const VENUE = 'bullish';
const KINDS: Readonly<Record<string, InstrumentKind>> = { OPTION: 'option', PERPETUAL: 'perp' };

function make(
  name: string,
  kind: InstrumentKind,
  base: string,
  quote: string,
  receivedAt: number,
  f: Partial<Instrument>,
): Instrument | null {
  const symbol = symbolForBase(base);
  if (symbol === null) return null;
  return {
    venue: VENUE,
    symbol,
    ts: receivedAt,
    receivedAt,
    id: `${VENUE}:instrument:${name}`,
    instrument: name,
    kind,
    strike: null,
    expiry: null,
    optionType: null,
    contractSize: 1,
    settlementCurrency: quote,
    quoteCurrency: quote,
    active: true,
    ...f,
  };
}

/** Name fallback (contract multiplier 1): BTC-USDC-PERP, BTC-USDC-20260130-160000-P (08:00 UTC). */
export function bullishInstrumentFromName(name: string, receivedAt: number): Instrument | null {
  const p = name.split('-');
  const [base = '', quote = ''] = p;
  if (p.length === 3 && p[2] === 'PERP') return make(name, 'perp', base, quote, receivedAt, {});
  if (p.length !== 5) return null;
  const m = /^(\d{4})(\d{2})(\d{2})$/.exec(p[2] ?? '');
  const strike = Number(p[3]);
  const optionType = p[4] === 'C' ? 'call' : p[4] === 'P' ? 'put' : null;
  if (m === null || !(strike > 0) || optionType === null) return null;
  const expiry = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), 8);
  return make(name, 'option', base, quote, receivedAt, { expiry, strike, optionType });
}

export function parseBullishMarkets(body: string, receivedAt: number): RestParseResult {
  const list = parseJson(body);
  if (list === undefined) return { ok: false, reason: 'malformed json' };
  if (!Array.isArray(list))
    return { ok: false, reason: isObj(list) ? `venue error: ${JSON.stringify(list).slice(0, 200)}` : 'markets body is not an array' };
  const out: MarketEvent[] = [];
  for (const m of list) {
    if (!isObj(m)) return { ok: false, reason: 'market is not an object' };
    const name = str(m, 'symbol');
    const type = str(m, 'marketType');
    if (name === null || type === null) return { ok: false, reason: 'market missing symbol/marketType' };
    const kind = KINDS[type];
    if (kind === undefined) continue;
    const base = str(m, 'underlyingBaseSymbol') ?? str(m, 'baseSymbol') ?? '';
    const quote = str(m, 'settlementAssetSymbol') ?? str(m, 'quoteSymbol') ?? 'USDC';
    const exp = str(m, 'expiryDatetime');
    const ot = str(m, 'optionType');
    const inst = make(name, kind, base, quote, receivedAt, {
      contractSize: num(m, 'contractMultiplier') ?? 1,
      active: m['marketEnabled'] !== false,
      ...(kind === 'option'
        ? {
            expiry: exp === null ? null : Date.parse(exp),
            strike: num(m, 'optionStrikePrice'),
            optionType: ot === 'CALL' ? 'call' : ot === 'PUT' ? 'put' : null,
          }
        : {}),
    });
    if (inst === null) continue;
    if (kind === 'option' && (inst.strike === null || inst.expiry === null || !Number.isFinite(inst.expiry) || inst.optionType === null)) {
      return { ok: false, reason: `option ${name} missing optionStrikePrice/expiryDatetime/optionType` };
    }
    out.push({ type: 'instrument', event: inst });
  }
  return { ok: true, events: out, nextUrl: null };
}
