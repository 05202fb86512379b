/**
 * Paradex `GET /v1/markets` -> Instrument. Sizes are in base units (contract size 1); dated options expire at
 * `expiry_at` (ms, 08:00 UTC). Names: BTC-USD-PERP, dated options BTC-USD-8MAY26-78000-C, perpetual options
 * BTC-USD-100000-C. Perpetual options have no expiry, which the option event families require, so they are not
 * listed (VERIFY whether the analytics want them with a synthetic tenor).
 */
import { expiryFromDmmmyy, strikeFrom } from '../../connector/option-names.ts';
import { arr, isObj, num, parseJson, str, symbolForBase } from '../../connector/parse-helpers.ts';
import type { Instrument, InstrumentKind, MarketEvent } from '#schemas/events.ts';
import type { RestParseResult } from '../../connector/types.ts';

const VENUE = 'paradex';
const KINDS: Readonly<Record<string, InstrumentKind>> = { PERP: 'perp', OPTION: 'option' };

function make(name: string, kind: InstrumentKind, receivedAt: number, f: Partial<Instrument>): Instrument | null {
  const symbol = symbolForBase(name.split('-')[0] ?? '');
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
    settlementCurrency: 'USDC',
    quoteCurrency: 'USD',
    active: true,
    ...f,
  };
}

/** Name fallback: BTC-USD-PERP and dated options BTC-USD-8MAY26-78000-C (08:00 UTC). Perpetual options -> null. */
export function paradexInstrumentFromName(name: string, receivedAt: number): Instrument | null {
  const p = name.split('-');
  if (p.length === 3 && p[2] === 'PERP') return make(name, 'perp', receivedAt, {});
  if (p.length !== 5) return null;
  const expiry = expiryFromDmmmyy(p[2] ?? '');
  const strike = strikeFrom(p[3] ?? '');
  const optionType = p[4] === 'C' ? 'call' : p[4] === 'P' ? 'put' : null;
  if (expiry === null || strike === null || optionType === null) return null;
  return make(name, 'option', receivedAt, { expiry, strike, optionType });
}

export function parseParadexMarkets(body: string, receivedAt: number): RestParseResult {
  const msg = parseJson(body);
  if (!isObj(msg)) return { ok: false, reason: 'malformed json' };
  const list = arr(msg, 'results');
  if (list === null)
    return { ok: false, reason: `missing results array${typeof msg['message'] === 'string' ? `: ${msg['message']}` : ''}` };
  const out: MarketEvent[] = [];
  for (const m of list) {
    if (!isObj(m)) return { ok: false, reason: 'market is not an object' };
    const name = str(m, 'symbol');
    const assetKind = str(m, 'asset_kind');
    if (name === null || assetKind === null) return { ok: false, reason: 'market missing symbol/asset_kind' };
    const kind = KINDS[assetKind];
    if (kind === undefined) continue; // PERP_OPTION (no expiry), SPOT
    const ot = str(m, 'option_type');
    const expiryAt = num(m, 'expiry_at');
    const inst = make(name, kind, receivedAt, {
      settlementCurrency: str(m, 'settlement_currency') ?? 'USDC',
      quoteCurrency: str(m, 'quote_currency') ?? 'USD',
      ...(kind === 'option'
        ? {
            expiry: expiryAt !== null && expiryAt > 0 ? expiryAt : null,
            strike: num(m, 'strike_price'),
            optionType: ot === 'CALL' ? 'call' : ot === 'PUT' ? 'put' : null,
          }
        : {}),
    });
    if (inst === null) continue;
    if (kind === 'option' && (inst.expiry === null || inst.strike === null || inst.optionType === null))
      return { ok: false, reason: `option ${name} missing expiry_at/strike_price/option_type` };
    out.push({ type: 'instrument', event: inst });
  }
  return { ok: true, events: out, nextUrl: null };
}
