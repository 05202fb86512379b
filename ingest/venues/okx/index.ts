/** OKX v5 connector spec: one /public connection, text `ping` every 20 s, option OI polled over REST. */
import { arr, chunk, guard, isObj, parseJson, restGuard, str } from '../../connector/parse-helpers.ts';
import { SYMBOL_BASE } from '#schemas/events.ts';
import type { MarketEvent } from '#schemas/events.ts';
import type { HeartbeatRule, ParserContext, RestParseResult, RestRequest, VenueConnectorSpec, VenueUrls } from '../../connector/types.ts';
import { okxInstrumentFromName, parseOkxInstruments } from './instruments.ts';
import { parseOkxName } from './names.ts';
import { openInterest, parseOkxFrame } from './parse.ts';
import { okxGapFill } from './gap-fill.ts';
import type { OkxRow } from './parse.ts';

export const OKX_URLS: VenueUrls = { public: 'wss://ws.okx.com:8443/ws/v5/public', rest: 'https://www.okx.com' };

const ARGS_PER_FRAME = 100;
const HEARTBEAT: HeartbeatRule = { kind: 'app_ping', intervalMs: 20_000, payload: 'ping' };

/** REST `/api/v5/public/open-interest` body -> option tickers (OI only) / perp stats, same rules as the WS channel. */
export function parseOkxOpenInterestRest(body: string, ctx: ParserContext): RestParseResult {
  const msg = parseJson(body);
  if (!isObj(msg)) return { ok: false, reason: 'malformed json' };
  if (str(msg, 'code') !== '0') return { ok: false, reason: `venue error: ${String(msg['code'])} ${str(msg, 'msg') ?? ''}` };
  const data = arr(msg, 'data');
  if (data === null) return { ok: false, reason: 'missing data array' };
  const row: OkxRow = { out: [] as MarketEvent[], error: null };
  for (const d of data) {
    if (!isObj(d)) return { ok: false, reason: 'data item is not an object' };
    openInterest(d, ctx, row);
    if (row.error !== null) row.error = null; // an unlisted new strike: skip it, the next listing refresh adds it
  }
  return { ok: true, events: row.out, nextUrl: null };
}

export function createOkxConnector(overrides: VenueUrls = {}): VenueConnectorSpec {
  const urls: VenueUrls = { ...OKX_URLS, ...overrides };
  const rest = urls['rest'] ?? '';
  const listing = (id: string, url: string): RestRequest => ({
    id,
    url,
    parse: restGuard((b, ctx) => parseOkxInstruments(b, ctx.receivedAt)),
  });
  const optionFamilies = (
    symbols: readonly string[],
    instruments: readonly { venue: string; symbol: string; kind: string; instrument: string }[],
  ): string[] => {
    const wanted = new Set(symbols);
    const fams = new Set<string>();
    for (const i of instruments)
      if (i.venue === 'okx' && i.kind === 'option' && wanted.has(i.symbol)) fams.add(parseOkxName(i.instrument)?.family ?? '');
    fams.delete('');
    return [...fams];
  };
  return {
    venue: 'okx',
    urls,
    instrumentRequests(symbols) {
      return [
        listing('okx:swap', `${rest}/api/v5/public/instruments?instType=SWAP`),
        ...symbols.flatMap((s) => {
          const b = SYMBOL_BASE[s];
          return [
            listing(`okx:spot:${b}`, `${rest}/api/v5/public/instruments?instType=SPOT&instId=${b}-USDT`),
            // probe both option families; a missing family answers code 51001 = no options for that coin
            listing(`okx:option:${b}-USD`, `${rest}/api/v5/public/instruments?instType=OPTION&instFamily=${b}-USD`),
            listing(`okx:option:${b}-USD_UM`, `${rest}/api/v5/public/instruments?instType=OPTION&instFamily=${b}-USD_UM`),
          ];
        }),
      ];
    },
    connections(symbols, instruments) {
      const wanted = new Set<string>(symbols);
      const args: Record<string, string>[] = [];
      const indexIds = new Set<string>();
      for (const fam of optionFamilies(symbols, instruments)) {
        args.push({ channel: 'option-trades', instType: 'OPTION', instFamily: fam }, { channel: 'opt-summary', instFamily: fam });
        indexIds.add(fam.replace('_UM', ''));
      }
      let swaps = 0;
      for (const i of instruments) {
        if (i.venue !== 'okx' || !wanted.has(i.symbol) || !i.active) continue;
        // option book: one `tickers` subscription per listed option (the state merges it with opt-summary and OI)
        if (i.kind === 'option') args.push({ channel: 'tickers', instId: i.instrument });
        else if (i.kind === 'perp') {
          swaps++;
          for (const channel of ['trades', 'funding-rate', 'open-interest', 'mark-price']) args.push({ channel, instId: i.instrument });
          indexIds.add(i.instrument.replace('-SWAP', ''));
        } else if (i.kind === 'spot') args.push({ channel: 'trades', instId: i.instrument });
      }
      if (swaps > 0) args.push({ channel: 'liquidation-orders', instType: 'SWAP' });
      for (const instId of indexIds) args.push({ channel: 'index-tickers', instId });
      if (args.length === 0) return [];
      const subscribeFrames = chunk(args, ARGS_PER_FRAME).map((a) => JSON.stringify({ op: 'subscribe', args: a }));
      return [{ id: 'public', url: urls['public'] ?? '', subscribeFrames, heartbeat: HEARTBEAT }];
    },
    pollers(symbols, instruments) {
      return optionFamilies(symbols, instruments).map((fam) => ({
        id: `okx:option-oi:${fam}`,
        url: `${rest}/api/v5/public/open-interest?instType=OPTION&instFamily=${fam}`,
        intervalMs: 60_000,
        parse: restGuard(parseOkxOpenInterestRest),
      }));
    },
    parse: guard(parseOkxFrame),
    instrumentFromName: okxInstrumentFromName,
    gapFill: okxGapFill(rest),
  };
}

export const okxConnector: VenueConnectorSpec = createOkxConnector();
