/**
 * Thalex `public/instruments` (REST GET or WS) -> Instrument. Amounts are in coins (contract size 1); option
 * expiry is `expiration_timestamp` in SECONDS. Names are Deribit style: BTC-25OCT24-60000-C, BTC-PERPETUAL.
 */
import { expiryFromDmmmyy, strikeFrom } from '../../connector/option-names.ts';
import { arr, isObj, num, parseJson, str, symbolForBase } from '../../connector/parse-helpers.ts';
import type { Instrument, InstrumentKind, MarketEvent } from '#schemas/events.ts';
import type { RestParseResult } from '../../connector/types.ts';

const VENUE = 'thalex';
const KINDS: Readonly<Record<string, InstrumentKind>> = { option: 'option', perpetual: 'perp', future: 'future' };

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
    settlementCurrency: 'USD',
    quoteCurrency: 'USD',
    active: true,
    ...f,
  };
}

/** Name fallback: BTC-PERPETUAL, BTC-25OCT24-60000-C (expiry 08:00 UTC assumed when no listing). */
export function thalexInstrumentFromName(name: string, receivedAt: number): Instrument | null {
  const p = name.split('-');
  if (p.length === 2 && p[1] === 'PERPETUAL') return make(name, 'perp', receivedAt, {});
  if (p.length !== 4) return null;
  const expiry = expiryFromDmmmyy(p[1] ?? '');
  const strike = strikeFrom(p[2] ?? '');
  const optionType = p[3] === 'C' ? 'call' : p[3] === 'P' ? 'put' : null;
  if (expiry === null || strike === null || optionType === null) return null;
  return make(name, 'option', receivedAt, { expiry, strike, optionType });
}

export function parseThalexInstruments(body: string, receivedAt: number): RestParseResult {
  const msg = parseJson(body);
  if (!isObj(msg)) return { ok: false, reason: 'malformed json' };
  if (isObj(msg['error'])) return { ok: false, reason: `venue error: ${JSON.stringify(msg['error'])}` };
  const list = arr(msg, 'result');
  if (list === null) return { ok: false, reason: 'missing result array' };
  const out: MarketEvent[] = [];
  for (const item of list) {
    if (!isObj(item)) return { ok: false, reason: 'instrument is not an object' };
    const name = str(item, 'instrument_name');
    const type = str(item, 'type');
    if (name === null || type === null) return { ok: false, reason: 'instrument missing instrument_name/type' };
    const kind = KINDS[type];
    if (kind === undefined) continue; // combinations
    const exp = num(item, 'expiration_timestamp');
    const ot = str(item, 'option_type');
    const inst = make(name, kind, receivedAt, {
      expiry: kind === 'perp' || exp === null ? null : Math.round(exp * 1000),
      strike: kind === 'option' ? num(item, 'strike_price') : null,
      optionType: kind !== 'option' ? null : ot === 'call' ? 'call' : ot === 'put' ? 'put' : null,
    });
    if (inst === null) continue;
    if (kind === 'option' && (inst.strike === null || inst.expiry === null || inst.optionType === null))
      return { ok: false, reason: `option ${name} missing strike/expiry/type` };
    out.push({ type: 'instrument', event: inst });
  }
  return { ok: true, events: out, nextUrl: null };
}
