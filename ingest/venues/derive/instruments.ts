/**
 * Derive v3 `public/get_all_instruments` (POST, paginated) -> Instrument. Amounts are in base units, so the
 * contract size is 1 coin; option expiry comes from `option_details.expiry` (seconds).
 */
import { arr, isObj, num, obj, parseJson, str, symbolForBase } from '../../connector/parse-helpers.ts';
import type { Instrument, InstrumentKind, MarketEvent } from '#schemas/events.ts';
import type { RestParseResult } from '../../connector/types.ts';
import { parseDeriveName } from './names.ts';

const VENUE = 'derive';
export const DERIVE_PAGE_SIZE = 1000;

const KINDS: Readonly<Record<string, InstrumentKind>> = { option: 'option', perp: 'perp', erc20: 'spot' };

/** The listing URL of one (type, currency, page): the POST body's fields mirrored in the query string. */
export function deriveListingUrl(rest: string, type: string, currency: string, page: number): string {
  return `${rest}/public/get_all_instruments?instrument_type=${type}&currency=${currency}&expired=false&page=${page}&page_size=${DERIVE_PAGE_SIZE}`;
}

export function deriveListingBody(type: string, currency: string, page: number): string {
  return JSON.stringify({ instrument_type: type, currency, expired: false, page, page_size: DERIVE_PAGE_SIZE });
}

function instrument(name: string, kind: InstrumentKind, fields: Partial<Instrument>, receivedAt: number): Instrument | null {
  const p = parseDeriveName(name);
  const symbol = p === null ? null : symbolForBase(p.base);
  if (p === null || symbol === null) return null;
  return {
    venue: VENUE,
    symbol,
    ts: receivedAt,
    receivedAt,
    id: `${VENUE}:instrument:${name}`,
    instrument: name,
    kind,
    strike: p.strike,
    expiry: p.expiry,
    optionType: p.optionType,
    contractSize: 1,
    settlementCurrency: 'USDC',
    quoteCurrency: 'USDC',
    active: true,
    ...fields,
  };
}

/** Name fallback: Derive sizes are always in coins, so the name alone is enough. */
export function deriveInstrumentFromName(name: string, receivedAt: number): Instrument | null {
  const p = parseDeriveName(name);
  return p === null ? null : instrument(name, p.kind, {}, receivedAt);
}

export function parseDeriveInstruments(body: string, receivedAt: number, url: string): RestParseResult {
  const msg = parseJson(body);
  if (!isObj(msg)) return { ok: false, reason: 'malformed json' };
  const error = obj(msg, 'error');
  if (error !== null) return { ok: false, reason: `venue error: ${String(error['code'])} ${str(error, 'message') ?? ''}` };
  const result = obj(msg, 'result');
  const list = result === null ? null : arr(result, 'instruments');
  if (result === null || list === null) return { ok: false, reason: 'missing result.instruments array' };
  const out: MarketEvent[] = [];
  for (const item of list) {
    if (!isObj(item)) return { ok: false, reason: 'instrument is not an object' };
    const name = str(item, 'instrument_name');
    const kind = KINDS[str(item, 'instrument_type') ?? ''];
    if (name === null || kind === undefined) return { ok: false, reason: 'instrument missing instrument_name/instrument_type' };
    const od = obj(item, 'option_details');
    const expirySec = od === null ? null : num(od, 'expiry');
    const strike = od === null ? null : num(od, 'strike');
    const ot = od === null ? null : str(od, 'option_type');
    const quote = str(item, 'quote_currency') ?? 'USDC';
    const fields: Partial<Instrument> = {
      settlementCurrency: quote,
      quoteCurrency: quote,
      active: item['is_active'] !== false,
      ...(kind === 'option' && expirySec !== null ? { expiry: expirySec * 1000 } : {}),
      ...(kind === 'option' && strike !== null ? { strike } : {}),
      ...(kind === 'option' && (ot === 'C' || ot === 'P') ? { optionType: ot === 'C' ? 'call' : 'put' } : {}),
    };
    const inst = instrument(name, kind, fields, receivedAt);
    if (inst === null) continue;
    if (inst.kind === 'option' && (inst.strike === null || inst.expiry === null || inst.optionType === null)) continue;
    out.push({ type: 'instrument', event: inst });
  }
  const pagination = obj(result, 'pagination');
  const pages = pagination === null ? null : num(pagination, 'num_pages');
  const query = new URL(url).searchParams;
  const page = Number(query.get('page') ?? '1');
  if (pages === null || page >= pages) return { ok: true, events: out, nextUrl: null };
  // The POST body is what the venue reads; the URL mirrors it so each page has its own URL.
  const nextBody = deriveListingBody(query.get('instrument_type') ?? '', query.get('currency') ?? '', page + 1);
  return { ok: true, events: out, nextUrl: url.replace(/([?&]page=)\d+/, `$1${page + 1}`), nextBody };
}
