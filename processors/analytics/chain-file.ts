/**
 * Chain file of `gex levels --chain FILE` (JSON, already parsed by the caller):
 * { symbol, now: ISO, spot, perp_price: number|null, instruments: [{ venue, strike, expiry: ISO,
 *   type: 'call'|'put', open_interest (coins), mark_iv (fraction, null/0 = skipped), forward,
 *   dealer_inventory? (coins) }] }
 * Pure validation without zod: returns the typed chain or every error found (path: message).
 */
import { SYMBOLS, VENUES } from '#schemas/events.ts';
import type { MarketSymbol, Venue } from '#schemas/events.ts';
import { buildVenueRows, levelsFromRows } from './aggregate.ts';
import { ALL_INCLUDES } from './levels.ts';
import type { LevelsData, LevelsInclude } from './levels.ts';
import { prepareChain } from './gex.ts';
import type { Greek } from './greek-exposure.ts';
import { greekExposures } from './greeks-data.ts';
import type { GreekExposureData } from './greeks-data.ts';
import type { ChainInstrument, ChainSnapshot, DealerModel } from './types.ts';

export type ChainParseResult =
  { readonly ok: true; readonly chain: ChainSnapshot } | { readonly ok: false; readonly errors: readonly string[] };

const ISO_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function finite(v: unknown): v is number {
  return typeof v === 'number' && Number.isFinite(v);
}

function parseIso(v: unknown): number | null {
  if (typeof v !== 'string' || !ISO_RE.test(v)) return null;
  const ms = Date.parse(v);
  return Number.isFinite(ms) ? ms : null;
}

function parseInstrument(v: unknown, path: string, errors: string[]): ChainInstrument | null {
  if (!isRecord(v)) {
    errors.push(`${path}: must be an object`);
    return null;
  }
  const n = errors.length;
  const venue = v['venue'];
  if (typeof venue !== 'string' || !(VENUES as readonly string[]).includes(venue))
    errors.push(`${path}.venue: must be one of ${VENUES.join(', ')}`);
  const strike = v['strike'];
  if (!finite(strike) || strike <= 0) errors.push(`${path}.strike: must be a positive number`);
  const expiry = parseIso(v['expiry']);
  if (expiry === null) errors.push(`${path}.expiry: must be an ISO-8601 instant with offset`);
  const type = v['type'];
  if (type !== 'call' && type !== 'put') errors.push(`${path}.type: must be 'call' or 'put'`);
  const oi = v['open_interest'];
  if (!finite(oi) || oi < 0) errors.push(`${path}.open_interest: must be a number >= 0 (coins)`);
  const iv = v['mark_iv'];
  if (!(iv === null || iv === undefined || (finite(iv) && iv >= 0))) errors.push(`${path}.mark_iv: must be a fraction >= 0 or null`);
  else if (finite(iv) && iv > 10) errors.push(`${path}.mark_iv: ${iv} looks like percent; use a fraction (0.55 = 55%)`);
  const forward = v['forward'];
  if (!finite(forward) || forward <= 0) errors.push(`${path}.forward: must be a positive number`);
  const inv = v['dealer_inventory'];
  if (!(inv === undefined || inv === null || finite(inv))) errors.push(`${path}.dealer_inventory: must be a number (coins) if present`);
  if (errors.length > n) return null;
  return {
    venue: venue as Venue,
    strike: strike as number,
    expiry: expiry as number,
    type: type as 'call' | 'put',
    openInterest: oi as number,
    markIv: finite(iv) ? iv : null,
    forward: forward as number,
    ...(finite(inv) ? { dealerInventory: inv } : {}),
  };
}

export function parseChainFile(input: unknown): ChainParseResult {
  const errors: string[] = [];
  if (!isRecord(input)) return { ok: false, errors: ['$: must be a JSON object'] };
  const symbol = input['symbol'];
  if (typeof symbol !== 'string' || !(SYMBOLS as readonly string[]).includes(symbol))
    errors.push(`symbol: must be one of ${SYMBOLS.join(', ')}`);
  const now = parseIso(input['now']);
  if (now === null) errors.push('now: must be an ISO-8601 instant with offset');
  const spot = input['spot'];
  if (!finite(spot) || spot <= 0) errors.push('spot: must be a positive number');
  const perp = input['perp_price'];
  if (!(perp === null || perp === undefined || (finite(perp) && perp > 0))) errors.push('perp_price: must be a positive number or null');
  const list = input['instruments'];
  const instruments: ChainInstrument[] = [];
  if (!Array.isArray(list)) errors.push('instruments: must be an array');
  else
    list.forEach((item: unknown, i) => {
      const ins = parseInstrument(item, `instruments[${i}]`, errors);
      if (ins !== null) instruments.push(ins);
    });
  if (errors.length > 0) return { ok: false, errors };
  return {
    ok: true,
    chain: {
      symbol: symbol as MarketSymbol,
      now: now as number,
      spot: spot as number,
      perpPrice: finite(perp) ? perp : null,
      instruments,
    },
  };
}

/** Levels JSON for a chain (default: every optional block): build venue rows, sum all venues, extract. */
export function computeLevelsFromChain(chain: ChainSnapshot, model: DealerModel, include: LevelsInclude = ALL_INCLUDES): LevelsData {
  return levelsFromRows(
    { symbol: chain.symbol, computed_at: chain.now, spot: chain.spot, perp_price: chain.perpPrice },
    buildVenueRows(chain),
    model,
    undefined,
    include,
  );
}

/** The `data` object of /v2/options/greeks/{greek} for a chain file (every venue, every expiry, no breakdown). */
export function computeGreeksFromChain(chain: ChainSnapshot, greek: Greek, model: DealerModel): GreekExposureData {
  return greekExposures({
    symbol: chain.symbol,
    now: chain.now,
    spot: chain.spot,
    open: prepareChain(chain).open,
    greek,
    model,
    breakdown: false,
  });
}
