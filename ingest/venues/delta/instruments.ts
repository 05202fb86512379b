/**
 * Delta Exchange (India and global) `GET /v2/products` (cursor-paginated) -> Instrument. Sizes are contracts ×
 * `contract_value` (e.g. 0.001 BTC), so every derivative needs its listing; options settle at `settlement_time`
 * (12:00 UTC). Names: options `C-BTC-90000-310125` (type-asset-strike-ddMMyy), perps `BTCUSD`, `BTCUSDT`.
 */
import { arr, isObj, num, obj, parseJson, str, symbolForBase } from '../../connector/parse-helpers.ts';
import type { InstrumentKind, MarketEvent, Venue } from '#schemas/events.ts';
import type { RestParseResult } from '../../connector/types.ts';

const KINDS: Readonly<Record<string, InstrumentKind>> = { perpetual_futures: 'perp', call_options: 'option', put_options: 'option' };

export const DELTA_PAGE_SIZE = 500;

export function deltaProductsUrl(rest: string): string {
  return `${rest}/v2/products?contract_types=perpetual_futures,call_options,put_options&states=live&page_size=${DELTA_PAGE_SIZE}`;
}

function assetSymbol(o: Readonly<Record<string, unknown>>, key: string): string | null {
  const a = obj(o, key);
  return a === null ? null : str(a, 'symbol');
}

export function parseDeltaProducts(venue: Venue, body: string, receivedAt: number, url: string): RestParseResult {
  const msg = parseJson(body);
  if (!isObj(msg)) return { ok: false, reason: 'malformed json' };
  if (msg['success'] === false) return { ok: false, reason: `venue error: ${JSON.stringify(msg['error'] ?? null)}` };
  const list = arr(msg, 'result');
  if (list === null) return { ok: false, reason: 'missing result array' };
  const out: MarketEvent[] = [];
  for (const p of list) {
    if (!isObj(p)) return { ok: false, reason: 'product is not an object' };
    const name = str(p, 'symbol');
    const type = str(p, 'contract_type');
    if (name === null || type === null) return { ok: false, reason: 'product missing symbol/contract_type' };
    const kind = KINDS[type];
    const base = assetSymbol(p, 'underlying_asset');
    const symbol = base === null ? null : symbolForBase(base);
    if (kind === undefined || symbol === null) continue;
    const cv = num(p, 'contract_value');
    if (cv === null || cv <= 0) return { ok: false, reason: `product ${name} missing contract_value` };
    const settle = assetSymbol(p, 'settling_asset') ?? 'USD';
    const quote = assetSymbol(p, 'quoting_asset') ?? 'USD';
    let strike: number | null = null;
    let expiry: number | null = null;
    if (kind === 'option') {
      strike = num(p, 'strike_price');
      const st = str(p, 'settlement_time');
      expiry = st === null ? NaN : Date.parse(st);
      if (strike === null || !Number.isFinite(expiry)) return { ok: false, reason: `option ${name} missing strike_price/settlement_time` };
    }
    out.push({
      type: 'instrument',
      event: {
        venue,
        symbol,
        ts: receivedAt,
        receivedAt,
        id: `${venue}:instrument:${name}`,
        instrument: name,
        kind,
        strike,
        expiry,
        optionType: kind !== 'option' ? null : type === 'call_options' ? 'call' : 'put',
        contractSize: cv,
        settlementCurrency: settle,
        quoteCurrency: quote,
        active: (str(p, 'state') ?? 'live') === 'live',
      },
    });
  }
  const meta = obj(msg, 'meta');
  const after = meta === null ? null : str(meta, 'after');
  const nextUrl = after === null || after === '' ? null : `${url.replace(/&after=[^&]*/, '')}&after=${encodeURIComponent(after)}`;
  return { ok: true, events: out, nextUrl };
}

/** `BTC-310326` chain name of an option's expiry (the ticker channel accepts option chains). */
export function deltaChainName(base: string, expiry: number): string {
  const d = new Date(expiry);
  const p2 = (n: number): string => String(n).padStart(2, '0');
  return `${base}-${p2(d.getUTCDate())}${p2(d.getUTCMonth() + 1)}${p2(d.getUTCFullYear() % 100)}`;
}
