import type { Instrument, MarketEvent, OptionTicker, PerpStats } from '#schemas/events.ts';
import type { TradeLedger } from '../market/ledger.ts';
import type { SandboxMarket } from '../market/market.ts';
import { hash32 } from '#ingest/connector/parse-helpers.ts';
import { VENUE_SPECS } from '../market/venues.ts';
import { VenueHost, groupBy, str, type Client, type RestReply, venueServer, malformedFrame } from './host.ts';
import type { MalformedKind, ProtocolTimings, VenueServer, VenueServerContext } from './types.ts';

/**
 * Thalex: WebSocket /ws/api/v2 (`public/subscribe` with a channel list, no `jsonrpc` needed; notifications
 * `{channel_name, notification}`) and REST GET /api/v2/public/instruments. Channels: recent_trades.{U}USD.{all|normal}
 * (arrays `[price, size, side, time_s, instrument, implied_taker]`, no trade id), ticker.{instrument}.{delay},
 * price_index.{U}USD. Times are seconds (float). Clients must send protocol pings: one that sent none for
 * `thalexClientPingTimeoutMs` is dropped (sandbox rule).
 *
 * Ledger ids: Thalex publishes no trade id, so the delivered ledger holds the id the identifying fields give
 * (`hash32(instrument|time|price|size|side)`, as ingest/venues/thalex does); trades of one instant get consecutive µs
 * times so equal trades stay apart.
 */
const spec = VENUE_SPECS.thalex;
const baseOf = (name: string): string => name.split('-')[0] ?? '';
const DELAYS = ['raw', '100ms', '200ms', '500ms', '1000ms', '5000ms', '60000ms'] as const;

function notify(channel: string, notification: unknown): string {
  return JSON.stringify({ channel_name: channel, notification });
}

function listingItem(i: Instrument): Record<string, unknown> {
  const base = baseOf(i.instrument);
  if (i.kind === 'perp') {
    const p = spec.perps.find((x) => x.instrument === i.instrument);
    return {
      instrument_name: i.instrument,
      product: `F${base}USD`,
      tick_size: 1,
      volume_tick_size: p?.lot ?? 0.0001,
      min_order_amount: p?.lot ?? 0.0001,
      underlying: `${base}USD`,
      type: 'perpetual',
      base_currency: base,
    };
  }
  const s = spec.options.find((o) => o.symbol === i.symbol);
  const expiry = i.expiry ?? 0;
  return {
    instrument_name: i.instrument,
    product: `O${base}USD`,
    tick_size: s?.priceTick ?? 5,
    volume_tick_size: s?.lot ?? 0.01,
    min_order_amount: s?.lot ?? 0.01,
    underlying: `${base}USD`,
    type: 'option',
    option_type: i.optionType,
    expiry_date: new Date(expiry).toISOString().slice(0, 10),
    expiration_timestamp: expiry / 1000,
    strike_price: i.strike,
    base_currency: base,
  };
}

type TradeEvent = Extract<MarketEvent, { type: 'option_trade' | 'perp_trade' }>;

/** Last trade time printed, µs: trades of one instant get consecutive µs (the sub-ms digits of the time). */
interface TradeClock {
  lastUs: number;
}

// --- frame encoders ---

function optionTickerData(t: OptionTicker): Record<string, unknown> {
  const m = t.markPrice ?? 0;
  return {
    best_bid_price: Number(str(m * 0.97, 2)),
    best_bid_amount: 1,
    best_ask_price: Number(str(m * 1.03, 2)),
    best_ask_amount: 1,
    last_price: null,
    mark_price: Number(str(m, 4)),
    mark_timestamp: t.ts / 1000,
    iv: t.markIv,
    delta: t.delta,
    index: t.indexPrice,
    forward: t.underlyingPrice,
    volume_24h: 0,
    value_24h: 0,
    open_interest: t.openInterest,
    collar_low: Number(str(m * 0.5, 2)),
    collar_high: Number(str(m * 2 + 10, 2)),
  };
}

function perpTickerData(s: PerpStats): Record<string, unknown> {
  const m = s.markPrice ?? 0;
  return {
    best_bid_price: m,
    best_bid_amount: 1,
    best_ask_price: m,
    best_ask_amount: 1,
    last_price: m,
    mark_price: m,
    mark_timestamp: s.ts / 1000,
    index: s.indexPrice,
    volume_24h: 0,
    value_24h: 0,
    open_interest: s.openInterest,
    funding_rate: s.fundingRate,
    funding_mark: m,
  };
}

/** Positional trade rows of one underlying and the ids their fields hash to (the connector's trade ids). */
function tradeRows(clock: TradeClock, list: readonly TradeEvent[]): { rows: unknown[]; ids: string[] } {
  const rows: unknown[] = [];
  const ids: string[] = [];
  for (const e of list) {
    const t = e.event;
    clock.lastUs = Math.max(t.ts * 1000, clock.lastUs + 1);
    const time = clock.lastUs / 1e6;
    rows.push([t.price, t.size, t.side, time, t.instrument, false]);
    ids.push(hash32(`${t.instrument}|${time}|${t.price}|${t.size}|${t.side}`));
  }
  return { rows, ids };
}

// --- publishing ---

/** recent_trades.{U}USD.{all,normal}; a delivered trade enters the ledger under its hashed id. */
function publishTrades(host: VenueHost, clock: TradeClock, delivered: TradeLedger, events: readonly MarketEvent[]): void {
  const trades = events.filter((e): e is TradeEvent => e.type === 'option_trade' || e.type === 'perp_trade');
  for (const [underlying, list] of groupBy(trades, (e) => `${baseOf(e.event.instrument)}USD`)) {
    const { rows, ids } = tradeRows(clock, list);
    let n = 0;
    for (const cat of ['all', 'normal']) {
      const ch = `recent_trades.${underlying}.${cat}`;
      n += host.broadcast(ch, () => notify(ch, rows));
    }
    if (n === 0) continue;
    list.forEach((e, i) => {
      delivered.record('thalex', {
        kind: e.type,
        symbol: e.event.symbol,
        instrument: e.event.instrument,
        tradeId: ids[i] ?? '',
        ts: e.event.ts,
      });
    });
  }
}

/** ticker.{instrument}.{delay} at every delay, price_index per index. */
function publishTickersAndIndexes(host: VenueHost, events: readonly MarketEvent[]): void {
  for (const e of events) {
    if (e.type === 'option_ticker' || e.type === 'perp_stats') {
      const data = e.type === 'option_ticker' ? optionTickerData(e.event) : perpTickerData(e.event);
      for (const d of DELAYS) {
        const ch = `ticker.${e.event.instrument}.${d}`;
        host.broadcast(ch, () => notify(ch, data));
      }
    } else if (e.type === 'index') {
      const ev = e.event;
      const ch = `price_index.${ev.name}`;
      host.broadcast(ch, () => notify(ch, { index_name: ev.name, price: ev.value, timestamp: ev.ts / 1000 }));
    }
  }
}

// --- REST ---

function instrumentsRest(market: SandboxMarket): RestReply {
  const list = market
    .instruments('thalex')
    .filter((i) => i.active)
    .map(listingItem);
  // A combination, as the venue lists them (the connector skips it).
  list.push({
    instrument_name: 'BTC-CS-25OCT24-60000-65000',
    product: 'OBTCUSD',
    underlying: 'BTCUSD',
    type: 'combination',
    base_currency: 'BTC',
  });
  return { status: 200, body: { result: list } };
}

// --- WS protocol ---

const CHANNEL = /^(recent_trades\.[A-Z]+USD\.(all|normal|block|combo)|ticker\.[A-Z]+-[A-Z0-9-]+\.(raw|\d+ms)|price_index\.[A-Z]+USD)$/;

/** (Un)subscribe: every channel valid or the request is refused naming the first bad one. */
function onSubscription(host: VenueHost, c: Client, id: unknown, subscribe: boolean, channels: unknown): void {
  const chans = Array.isArray(channels) ? channels.filter((x): x is string => typeof x === 'string') : [];
  const bad = chans.filter((ch) => !CHANNEL.test(ch));
  if (bad.length > 0) {
    host.send(c, JSON.stringify({ id, error: { code: 1, message: `unknown channel: ${bad[0]}` } }));
    return;
  }
  for (const ch of chans) {
    if (subscribe) c.subs.add(ch);
    else c.subs.delete(ch);
  }
  host.send(c, JSON.stringify({ id, result: chans }));
}

function onMessage(host: VenueHost, market: SandboxMarket, c: Client, text: string): void {
  let msg: { id?: unknown; method?: unknown; params?: { channels?: unknown } };
  try {
    msg = JSON.parse(text) as typeof msg;
  } catch {
    host.send(c, JSON.stringify({ id: null, error: { code: -32700, message: 'parse error' } }));
    return;
  }
  const id = msg.id ?? null;
  if (msg.method === 'public/subscribe' || msg.method === 'unsubscribe' || msg.method === 'public/unsubscribe') {
    onSubscription(host, c, id, msg.method === 'public/subscribe', msg.params?.channels);
    return;
  }
  if (msg.method === 'public/instruments') {
    host.send(c, JSON.stringify({ id, result: instrumentsRest(market).body }));
    return;
  }
  host.send(c, JSON.stringify({ id, error: { code: 2, message: 'method not found' } }));
}

/** Sandbox rule: a client that sent no protocol ping for thalexClientPingTimeoutMs is closed. */
function watchPings(timings: ProtocolTimings, c: Client): void {
  let lastPing = Date.now();
  c.ws.on('ping', () => {
    lastPing = Date.now();
  });
  const every = Math.max(10, Math.floor(timings.thalexClientPingTimeoutMs / 4));
  c.timers.push(
    setInterval(() => {
      if (Date.now() - lastPing > timings.thalexClientPingTimeoutMs) c.ws.close(1000, 'no ping');
    }, every),
  );
}

function malformed(host: VenueHost, kind: MalformedKind): number {
  const good = notify('recent_trades.BTCUSD.all', [[400, 1, 'buy', Date.now() / 1000, 'BTC-11MAY22-32400-C', false]]);
  const frame = malformedFrame(kind, good, 'Service Unavailable', (g) => g.replace('[400,1,', '["400","one",'));
  return host.sendAll(frame);
}

export async function startThalexServer(ctx: VenueServerContext, port = 0): Promise<VenueServer> {
  const { market, delivered, timings } = ctx;
  const clock: TradeClock = { lastUs: 0 };
  const host: VenueHost = new VenueHost('thalex', {
    wsPaths: (p) => p === '/ws/api/v2',
    rest: (path) => (path === '/api/v2/public/instruments' ? instrumentsRest(market) : null),
    onConnect: (c) => watchPings(timings, c),
    onMessage: (c, text) => onMessage(host, market, c, text),
  });
  const bound = await host.listen(port);
  const publish = (events: readonly MarketEvent[]): void => {
    publishTrades(host, clock, delivered, events);
    publishTickersAndIndexes(host, events);
  };
  return venueServer(
    'thalex',
    host,
    { rest: `http://127.0.0.1:${bound}`, ws: { main: `ws://127.0.0.1:${bound}/ws/api/v2` } },
    publish,
    (kind) => malformed(host, kind),
  );
}
