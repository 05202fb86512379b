/** Deribit `public/get_instruments` listing and the name-parsing fallback -> Instrument. */
import { arr, isObj, num, parseJson, str, symbolForBase } from '../../connector/parse-helpers.ts';
import type { Instrument, InstrumentKind, MarketEvent } from '#schemas/events.ts';
import type { RestParseResult } from '../../connector/types.ts';
import { parseDeribitName } from './names.ts';

const VENUE = 'deribit';

function instrumentId(name: string): string {
  return `${VENUE}:instrument:${name}`;
}

/** Options and linear instruments: contract = 1 coin. Inverse perps/futures: contractSize is USD per contract. */
export function deribitInstrumentFromName(name: string, receivedAt: number): Instrument | null {
  const p = parseDeribitName(name);
  if (p === null || p.kind === 'combo') return null;
  const symbol = symbolForBase(p.base);
  if (symbol === null) return null;
  const inverse = p.linearQuote === null;
  return {
    venue: VENUE,
    symbol,
    ts: receivedAt,
    receivedAt,
    id: instrumentId(name),
    instrument: name,
    kind: p.kind,
    strike: p.strike,
    expiry: p.expiry,
    optionType: p.optionType,
    contractSize: 1,
    settlementCurrency: inverse ? p.base : (p.linearQuote ?? 'USDC'),
    quoteCurrency: p.kind === 'option' ? (inverse ? p.base : (p.linearQuote ?? 'USDC')) : (p.linearQuote ?? 'USD'),
    active: true,
  };
}

function kindOf(kind: string, settlementPeriod: string | null): InstrumentKind | null {
  if (kind === 'option') return 'option';
  if (kind === 'spot') return 'spot';
  if (kind === 'future') return settlementPeriod === 'perpetual' ? 'perp' : 'future';
  return null;
}

/** Parses a `public/get_instruments` JSON-RPC response; untracked bases and combos are skipped. */
export function parseDeribitInstruments(body: string, receivedAt: number): RestParseResult {
  const msg = parseJson(body);
  if (!isObj(msg)) return { ok: false, reason: 'malformed json' };
  const error = msg['error'];
  if (error !== undefined) return { ok: false, reason: `venue error: ${JSON.stringify(error)}` };
  const list = arr(msg, 'result');
  if (list === null) return { ok: false, reason: 'missing result array' };
  const out: MarketEvent[] = [];
  for (const item of list) {
    if (!isObj(item)) return { ok: false, reason: 'instrument is not an object' };
    const name = str(item, 'instrument_name');
    const base = str(item, 'base_currency');
    const kindRaw = str(item, 'kind');
    if (name === null || base === null || kindRaw === null) return { ok: false, reason: 'instrument missing name/base/kind' };
    const symbol = symbolForBase(base);
    const kind = kindOf(kindRaw, str(item, 'settlement_period'));
    if (symbol === null || kind === null) continue;
    const contractSize = num(item, 'contract_size');
    if (contractSize === null) return { ok: false, reason: `instrument ${name}: missing contract_size` };
    const optionType = str(item, 'option_type');
    const creation = num(item, 'creation_timestamp');
    out.push({
      type: 'instrument',
      event: {
        venue: VENUE,
        symbol,
        ts: creation ?? receivedAt,
        receivedAt,
        id: instrumentId(name),
        instrument: name,
        kind,
        strike: kind === 'option' ? num(item, 'strike') : null,
        expiry: kind === 'option' || kind === 'future' ? num(item, 'expiration_timestamp') : null,
        optionType: optionType === 'call' || optionType === 'put' ? optionType : null,
        contractSize,
        settlementCurrency: str(item, 'settlement_currency') ?? base,
        quoteCurrency: str(item, 'quote_currency') ?? 'USD',
        active: item['is_active'] === true,
      },
    });
  }
  return { ok: true, events: out, nextUrl: null };
}
