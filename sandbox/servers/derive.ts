import type { IndexPrice, Instrument, LinearTrade, MarketEvent, OptionTicker, OptionTrade, PerpStats } from '#schemas/events.ts';
import type { TradeLedger } from '../market/ledger.ts';
import type { SandboxMarket } from '../market/market.ts';
import { VENUE_SPECS } from '../market/venues.ts';
import { VenueHost, groupBy, str, type Client, type RestCall, type RestReply, venueServer, malformedFrame } from './host.ts';
import { startServerPings } from './pings.ts';
import type { MalformedKind, VenueServer, VenueServerContext } from './types.ts';

/**
 * Derive v3: JSON-RPC WebSocket (/v3/ws) and POST REST /v3/public/get_all_instruments (JSON body: instrument_type,
 * currency, expired, page, page_size <= 1000; paginated). Channels: trades.{option|perp}.{CCY} (arrays, numbers as
 * strings), ticker_slim.{instrument}.{100|1000} (option_pricing for options, `f` funding for perps), spot_feed.{CCY}.
 * The deprecated `ticker.` channel is refused with the venue's error. Server protocol pings (~30 s).
 */
const spec = VENUE_SPECS.derive;
const baseOf = (name: string): string => name.split('-')[0] ?? '';

function notification(channel: string, data: unknown): string {
  return JSON.stringify({ method: 'subscription', params: { channel, data } });
}

function listingItem(i: Instrument): Record<string, unknown> {
  const base = baseOf(i.instrument);
  const option = i.kind === 'option';
  const series = spec.options.find((o) => o.symbol === i.symbol);
  const perp = spec.perps.find((p) => p.instrument === i.instrument);
  const step = option ? (series?.lot ?? 0.01) : (perp?.lot ?? 0.001);
  return {
    instrument_name: i.instrument,
    instrument_type: option ? 'option' : 'perp',
    is_active: i.active,
    base_currency: base,
    quote_currency: 'USDC',
    amount_step: String(step),
    tick_size: String(option ? (series?.priceTick ?? 5) : 0.1),
    minimum_amount: String(step),
    option_details: option
      ? {
          expiry: Math.floor((i.expiry ?? 0) / 1000),
          index: `${base}-USD`,
          option_type: i.optionType === 'call' ? 'C' : 'P',
          strike: String(i.strike),
          settlement_price: null,
        }
      : null,
    perp_details: option
      ? null
      : {
          index: `${base}-USD`,
          max_rate_per_hour: '0.004',
          min_rate_per_hour: '-0.004',
          static_interest_rate: '0.0000125',
          funding_rate: '0.0000125',
        },
    scheduled_activation: Math.floor(i.ts / 1000),
    scheduled_deactivation: option ? Math.floor((i.expiry ?? 0) / 1000) - 60 : 9_007_199_254_740_991,
  };
}

// --- frame encoders ---

function optionTickerData(t: OptionTicker): Record<string, unknown> {
  const m = t.markPrice ?? 0;
  return {
    instrument_ticker: {
      t: t.ts,
      A: '1',
      a: str(m * 1.03, 2),
      B: '1',
      b: str(m * 0.97, 2),
      I: str(t.indexPrice ?? 0, 2),
      M: str(m, 4),
      f: null,
      maxp: str(m * 3 + 10, 2),
      minp: '0.1',
      option_pricing: {
        d: str(t.delta ?? 0, 6),
        g: str(t.gamma ?? 0, 10),
        t: str(t.theta ?? 0, 6),
        v: str(t.vega ?? 0, 6),
        r: '0',
        i: str(t.markIv ?? 0, 4),
        bi: str(t.bidIv ?? 0, 4),
        ai: str(t.askIv ?? 0, 4),
        f: str(t.underlyingPrice ?? 0, 4),
        m: str(m, 4),
        df: '1',
      },
      stats: { c: '0', h: str(m, 4), l: str(m, 4), n: 0, oi: str(t.openInterest ?? 0, 6), p: '0', pr: str(m, 4), v: '0' },
    },
    timestamp: t.ts,
  };
}

function perpTickerData(s: PerpStats): Record<string, unknown> {
  const m = s.markPrice ?? 0;
  return {
    instrument_ticker: {
      t: s.ts,
      A: '1',
      a: str(m * 1.0001, 2),
      B: '1',
      b: str(m * 0.9999, 2),
      I: str(s.indexPrice ?? 0, 2),
      M: str(m, 2),
      // Derive funds hourly: the 8 h rate / 8.
      f: str((s.fundingRate ?? 0) / 8, 10),
      maxp: str(m * 1.05, 2),
      minp: str(m * 0.95, 2),
      option_pricing: null,
      stats: { c: '0', h: str(m, 2), l: str(m, 2), n: 0, oi: str(s.openInterest ?? 0, 4), p: '0', pr: str(m, 2), v: '0' },
    },
    timestamp: s.ts,
  };
}

function tradeItem(market: SandboxMarket, t: OptionTrade | LinearTrade, isOption: boolean): Record<string, unknown> {
  const mark = isOption ? (market.optionQuote('derive', t.instrument)?.markUsd ?? t.price) : t.price;
  return {
    trade_id: t.tradeId,
    instrument_name: t.instrument,
    timestamp: t.ts,
    trade_price: str(t.price, 4),
    trade_amount: str(t.size, 8),
    mark_price: str(mark, 4),
    index_price: str(market.index(t.symbol), 2),
    direction: t.side,
    quote_id: null,
    rfq_id: null,
  };
}

function spotFeedData(ev: IndexPrice): Record<string, unknown> {
  return {
    feeds: {
      [ev.name]: {
        confidence: '1',
        confidence_prev_daily: '1',
        price: str(ev.value, 4),
        price_prev_daily: str(ev.value, 4),
        timestamp_prev_daily: ev.ts - 86_400_000,
      },
    },
    timestamp: ev.ts,
  };
}

// --- publishing ---

function tradeChannel(e: MarketEvent): string | null {
  if (e.type === 'option_trade') return `trades.option.${baseOf(e.event.instrument)}`;
  if (e.type === 'perp_trade') return `trades.perp.${baseOf(e.event.instrument)}`;
  return null;
}

/** trades.{option|perp}.{CCY}, one array per channel; returns the events that reached a subscriber. */
function publishTrades(host: VenueHost, market: SandboxMarket, events: readonly MarketEvent[]): MarketEvent[] {
  const sent: MarketEvent[] = [];
  const trades = events.filter((e) => e.type === 'option_trade' || e.type === 'perp_trade');
  for (const [channel, list] of groupBy(trades, tradeChannel)) {
    const frame = (): string =>
      notification(
        channel,
        list.map((e) =>
          e.type === 'option_trade' || e.type === 'perp_trade' ? tradeItem(market, e.event, e.type === 'option_trade') : null,
        ),
      );
    if (host.broadcast(channel, frame) > 0) sent.push(...list);
  }
  return sent;
}

/** ticker_slim at both cadences, spot_feed per index. */
function publishTickersAndFeeds(host: VenueHost, events: readonly MarketEvent[]): void {
  for (const e of events) {
    if (e.type === 'option_ticker' || e.type === 'perp_stats') {
      const data = e.type === 'option_ticker' ? optionTickerData(e.event) : perpTickerData(e.event);
      for (const ms of [100, 1000]) {
        const ch = `ticker_slim.${e.event.instrument}.${ms}`;
        host.broadcast(ch, () => notification(ch, data));
      }
    } else if (e.type === 'index') {
      const ev = e.event;
      const ch = `spot_feed.${ev.name}`;
      host.broadcast(ch, () => notification(ch, spotFeedData(ev)));
    }
  }
}

function publish(host: VenueHost, market: SandboxMarket, delivered: TradeLedger, events: readonly MarketEvent[]): void {
  const sent = publishTrades(host, market, events);
  publishTickersAndFeeds(host, events);
  delivered.recordEvents(sent);
}

// --- REST ---

function instrumentsRest(market: SandboxMarket, call: RestCall): RestReply {
  const bad = (message: string): RestReply => ({
    status: 200,
    body: { id: null, error: { code: -32602, message: 'Invalid params', data: message } },
  });
  if (call.method !== 'POST') return { status: 405, body: { error: 'use POST with a JSON body' } };
  let p: { instrument_type?: unknown; currency?: unknown; expired?: unknown; page?: unknown; page_size?: unknown };
  try {
    p = JSON.parse(call.body) as typeof p;
  } catch {
    return bad('body is not JSON');
  }
  const type = p.instrument_type;
  if (type !== 'option' && type !== 'perp' && type !== 'erc20') return bad('instrument_type must be one of erc20, option, perp');
  const pageSize = Math.min(1000, Math.max(1, Number(p.page_size ?? 100)));
  const page = Math.max(1, Number(p.page ?? 1));
  const all = market
    .instruments('derive')
    .filter((i) => (type === 'option' ? i.kind === 'option' : type === 'perp' ? i.kind === 'perp' : i.kind === 'spot'))
    .filter((i) => typeof p.currency !== 'string' || baseOf(i.instrument) === p.currency)
    .filter((i) => p.expired === true || i.active);
  const slice = all.slice((page - 1) * pageSize, page * pageSize);
  return {
    status: 200,
    body: {
      id: null,
      result: { instruments: slice.map(listingItem), pagination: { num_pages: Math.ceil(all.length / pageSize), count: all.length } },
    },
  };
}

// --- WS protocol ---

const CHANNEL = /^(trades\.(option|perp|erc20)\.[A-Z]+|ticker_slim\.[A-Z]+-[A-Z0-9_-]+\.(100|1000)|spot_feed\.[A-Z]+)$/;

/** subscribe / unsubscribe: a status per channel; any deprecated `ticker.` channel refuses the whole request. */
function onSubscription(host: VenueHost, c: Client, id: unknown, method: 'subscribe' | 'unsubscribe', channels: unknown): void {
  const chans = Array.isArray(channels) ? channels.filter((x): x is string => typeof x === 'string') : [];
  if (chans.some((ch) => ch.startsWith('ticker.'))) {
    host.send(
      c,
      JSON.stringify({
        id,
        error: { code: -32602, message: 'Invalid params', data: '`ticker` channel has been deprecated. Please use `ticker_slim`' },
      }),
    );
    return;
  }
  const status: Record<string, string> = {};
  for (const ch of chans) {
    const ok = CHANNEL.test(ch);
    status[ch] = ok ? 'ok' : 'Invalid channel';
    if (!ok) continue;
    if (method === 'subscribe') c.subs.add(ch);
    else c.subs.delete(ch);
  }
  host.send(c, JSON.stringify({ id, result: { status, current_subscriptions: [...c.subs] } }));
}

function onMessage(host: VenueHost, c: Client, text: string): void {
  let msg: { id?: unknown; method?: unknown; params?: { channels?: unknown } };
  try {
    msg = JSON.parse(text) as typeof msg;
  } catch {
    host.send(c, JSON.stringify({ id: null, error: { code: -32700, message: 'Parse error' } }));
    return;
  }
  const id = msg.id ?? null;
  if (msg.method === 'subscribe' || msg.method === 'unsubscribe') {
    onSubscription(host, c, id, msg.method, msg.params?.channels);
    return;
  }
  if (msg.method === 'public/get_time') {
    host.send(c, JSON.stringify({ id, result: Date.now() }));
    return;
  }
  host.send(c, JSON.stringify({ id, error: { code: -32601, message: 'Method not found' } }));
}

function malformed(host: VenueHost, kind: MalformedKind): number {
  const good = notification('trades.option.BTC', [
    {
      trade_id: 'x1',
      instrument_name: 'BTC-20261225-100000-C',
      timestamp: Date.now(),
      trade_price: '4215.5',
      trade_amount: '0.25',
      mark_price: '4220',
      index_price: '96500',
      direction: 'sell',
      quote_id: null,
      rfq_id: null,
    },
  ]);
  const frame = malformedFrame(kind, good, '<html>502 Bad Gateway</html>', (g) =>
    g.replace('"trade_price":"4215.5"', '"trade_price":"n/a"'),
  );
  return host.sendAll(frame);
}

export async function startDeriveServer(ctx: VenueServerContext, port = 0): Promise<VenueServer> {
  const { market, delivered, timings } = ctx;
  const host: VenueHost = new VenueHost('derive', {
    wsPaths: (p) => p === '/v3/ws',
    rest: (path, _q, call) => (path === '/v3/public/get_all_instruments' ? instrumentsRest(market, call) : null),
    onConnect: (c) => startServerPings(host, c, timings.derivePingIntervalMs, timings.derivePingIntervalMs),
    onMessage: (c, text) => onMessage(host, c, text),
  });
  const bound = await host.listen(port);
  return venueServer(
    'derive',
    host,
    { rest: `http://127.0.0.1:${bound}`, ws: { main: `ws://127.0.0.1:${bound}/v3/ws` } },
    (events) => publish(host, market, delivered, events),
    (kind) => malformed(host, kind),
  );
}
