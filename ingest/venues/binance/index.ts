/**
 * Binance connector spec. USDⓈ-M host split: fstream /public (optionTrade) and /market (optionMarkPrice,
 * optionOpenInterest, index, aggTrade, markPrice@1s, forceOrder); spot trades on stream.binance.com. The
 * server pings (protocol level); max 200 streams per connection; perp OI is polled over REST.
 */
import { chunk, guard, isObj, num, parseJson, restGuard, rowId, str } from '../../connector/parse-helpers.ts';
import { lookupInstrument } from '../../connector/context.ts';
import type { MarketEvent } from '#schemas/events.ts';
import type {
  ConnectionPlan,
  HeartbeatRule,
  ParserContext,
  RestParseResult,
  VenueConnectorSpec,
  VenueUrls,
} from '../../connector/types.ts';
import { binanceInstrumentFromName, parseBinanceOptionsInfo, parseBinancePerpsInfo } from './instruments.ts';
import { parseBinanceFrame } from './parse.ts';
import { binanceGapFill } from './gap-fill.ts';

export const BINANCE_URLS: VenueUrls = {
  public: 'wss://fstream.binance.com/public/stream',
  market: 'wss://fstream.binance.com/market/stream',
  spot: 'wss://stream.binance.com:9443/stream',
  eapi: 'https://eapi.binance.com',
  fapi: 'https://fapi.binance.com',
  api: 'https://api.binance.com',
};

export const BINANCE_STREAMS_PER_CONNECTION = 200;
const STREAMS_PER_FRAME = 50;
const HEARTBEAT: HeartbeatRule = { kind: 'protocol_ping', serverPingEveryMs: 180_000, maxConnectionMs: 24 * 3600_000 };

/** `GET /fapi/v1/openInterest?symbol=X` -> perp stats with OI in coins (USD value is not published there). */
export function parseBinanceOpenInterest(body: string, ctx: ParserContext): RestParseResult {
  const msg = parseJson(body);
  if (!isObj(msg)) return { ok: false, reason: 'malformed json' };
  const name = str(msg, 'symbol');
  const oi = num(msg, 'openInterest');
  const ts = num(msg, 'time') ?? ctx.receivedAt;
  if (name === null || oi === null) return { ok: false, reason: 'openInterest missing symbol/openInterest' };
  const inst = lookupInstrument(ctx, name, binanceInstrumentFromName);
  if (inst === null) return { ok: true, events: [], nextUrl: null };
  const e: MarketEvent = {
    type: 'perp_stats',
    event: {
      venue: 'binance',
      symbol: inst.symbol,
      ts,
      receivedAt: ctx.receivedAt,
      id: rowId('binance', 'open_interest', name, ts),
      instrument: name,
      openInterest: oi,
      openInterestUsd: null,
      fundingRate: null,
      nextFundingTime: null,
      markPrice: null,
      indexPrice: null,
    },
  };
  return { ok: true, events: [e], nextUrl: null };
}

function plans(prefix: string, url: string, streams: readonly string[]): ConnectionPlan[] {
  return chunk(streams, BINANCE_STREAMS_PER_CONNECTION).map((group, n) => ({
    id: `${prefix}-${n}`,
    url,
    subscribeFrames: chunk(group, STREAMS_PER_FRAME).map((params, k) => JSON.stringify({ method: 'SUBSCRIBE', params, id: k + 1 })),
    heartbeat: HEARTBEAT,
  }));
}

/** `optionFillPaceMs`: pace of the per-option gap-fill requests (binance/gap-fill.ts; tests shorten it). */
export function createBinanceConnector(overrides: VenueUrls = {}, opts: { readonly optionFillPaceMs?: number } = {}): VenueConnectorSpec {
  const urls: VenueUrls = { ...BINANCE_URLS, ...overrides };
  return {
    venue: 'binance',
    urls,
    instrumentRequests() {
      return [
        {
          id: 'binance:eapi',
          url: `${urls['eapi'] ?? ''}/eapi/v1/exchangeInfo`,
          parse: restGuard((b, ctx) => parseBinanceOptionsInfo(b, ctx.receivedAt)),
        },
        {
          id: 'binance:fapi',
          url: `${urls['fapi'] ?? ''}/fapi/v1/exchangeInfo`,
          parse: restGuard((b, ctx) => parseBinancePerpsInfo(b, ctx.receivedAt)),
        },
      ];
    },
    connections(symbols, instruments) {
      const wanted = new Set<string>(symbols);
      const optionUnderlyings = new Set<string>();
      const expiries = new Set<string>();
      const perps: string[] = [];
      for (const i of instruments) {
        if (i.venue !== 'binance' || !wanted.has(i.symbol) || !i.active) continue;
        const lower = i.symbol.toLowerCase();
        if (i.kind === 'option') {
          optionUnderlyings.add(lower);
          const yymmdd = i.instrument.split('-')[1];
          if (yymmdd !== undefined) expiries.add(`${lower}@optionOpenInterest@${yymmdd}`);
        } else if (i.kind === 'perp') {
          const s = i.instrument.toLowerCase();
          perps.push(`${s}@aggTrade`, `${s}@markPrice@1s`, `${s}@forceOrder`);
        }
      }
      const pub = [...optionUnderlyings].map((u) => `${u}@optionTrade`);
      const market = [
        ...[...optionUnderlyings].map((u) => `${u}@optionMarkPrice`),
        ...expiries,
        ...(optionUnderlyings.size > 0 ? ['!index@arr'] : []),
        ...perps,
      ];
      const spot = symbols.map((s) => `${s.toLowerCase()}@trade`);
      return [
        ...plans('public', urls['public'] ?? '', pub),
        ...plans('market', urls['market'] ?? '', market),
        ...plans('spot', urls['spot'] ?? '', spot),
      ];
    },
    pollers(symbols, instruments) {
      const wanted = new Set<string>(symbols);
      return instruments
        .filter((i) => i.venue === 'binance' && i.kind === 'perp' && wanted.has(i.symbol))
        .map((i) => ({
          id: `binance:oi:${i.instrument}`,
          url: `${urls['fapi'] ?? ''}/fapi/v1/openInterest?symbol=${i.instrument}`,
          intervalMs: 5_000,
          parse: restGuard(parseBinanceOpenInterest),
        }));
    },
    parse: guard(parseBinanceFrame),
    instrumentFromName: binanceInstrumentFromName,
    gapFill: binanceGapFill({ fapi: urls['fapi'] ?? '', api: urls['api'] ?? '', eapi: urls['eapi'] ?? '' }, opts.optionFillPaceMs),
  };
}

export const binanceConnector: VenueConnectorSpec = createBinanceConnector();
