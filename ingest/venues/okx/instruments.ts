/** OKX `/api/v5/public/instruments` listing -> Instrument (contractSize = ctVal × ctMult coins). */
import { arr, isObj, mul, num, parseJson, str, symbolForBase } from '../../connector/parse-helpers.ts';
import type { Instrument, InstrumentKind, MarketEvent } from '#schemas/events.ts';
import type { RestParseResult } from '../../connector/types.ts';
import { parseOkxName } from './names.ts';

const VENUE = 'okx';

/** Name fallback: only spot pairs (size is already in coins). Derivatives need ctVal/ctMult from the listing. */
export function okxInstrumentFromName(name: string, receivedAt: number): Instrument | null {
  const p = parseOkxName(name);
  if (p === null || p.kind !== 'spot') return null;
  const symbol = symbolForBase(p.base);
  if (symbol === null) return null;
  return {
    venue: VENUE,
    symbol,
    ts: receivedAt,
    receivedAt,
    id: `${VENUE}:instrument:${name}`,
    instrument: name,
    kind: 'spot',
    strike: null,
    expiry: null,
    optionType: null,
    contractSize: 1,
    settlementCurrency: p.quote,
    quoteCurrency: p.quote,
    active: true,
  };
}

const KINDS: Readonly<Record<string, InstrumentKind>> = { OPTION: 'option', SWAP: 'perp', FUTURES: 'future', SPOT: 'spot' };

export function parseOkxInstruments(body: string, receivedAt: number): RestParseResult {
  const msg = parseJson(body);
  if (!isObj(msg)) return { ok: false, reason: 'malformed json' };
  const code = str(msg, 'code');
  // 51001: "Instrument ID / family does not exist" -> this coin has no such market
  if (code === '51001') return { ok: true, events: [], nextUrl: null };
  if (code !== '0') return { ok: false, reason: `venue error: ${String(code)} ${str(msg, 'msg') ?? ''}` };
  const list = arr(msg, 'data');
  if (list === null) return { ok: false, reason: 'missing data array' };
  const out: MarketEvent[] = [];
  for (const item of list) {
    if (!isObj(item)) return { ok: false, reason: 'instrument is not an object' };
    const instId = str(item, 'instId');
    const kind = KINDS[str(item, 'instType') ?? ''];
    if (instId === null || kind === undefined) return { ok: false, reason: 'instrument missing instId/instType' };
    const name = parseOkxName(instId);
    const symbol = name === null ? null : symbolForBase(name.base);
    if (name === null || symbol === null) continue;
    let contractSize = 1;
    if (kind !== 'spot') {
      const ctVal = num(item, 'ctVal');
      const ctMult = num(item, 'ctMult');
      // inverse swaps/futures have ctValCcy USD: not coin-sized, not tracked
      if (ctVal === null || ctMult === null || str(item, 'ctValCcy') !== name.base) continue;
      contractSize = mul(ctVal, ctMult);
    }
    const settle = str(item, 'settleCcy') || (str(item, 'quoteCcy') ?? name.quote);
    const exp = num(item, 'expTime');
    const optType = str(item, 'optType');
    out.push({
      type: 'instrument',
      event: {
        venue: VENUE,
        symbol,
        ts: num(item, 'listTime') ?? receivedAt,
        receivedAt,
        id: `${VENUE}:instrument:${instId}`,
        instrument: instId,
        kind,
        strike: kind === 'option' ? num(item, 'stk') : null,
        expiry: kind === 'option' || kind === 'future' ? exp : null,
        optionType: optType === 'C' ? 'call' : optType === 'P' ? 'put' : null,
        contractSize,
        settlementCurrency: settle,
        quoteCurrency: kind === 'option' ? settle : str(item, 'quoteCcy') || (str(item, 'settleCcy') ?? name.quote),
        active: str(item, 'state') === 'live',
      },
    });
  }
  return { ok: true, events: out, nextUrl: null };
}
