import type {
  Instrument,
  LinearTrade,
  Liquidation,
  MarketEvent,
  MarketSymbol,
  OptionTicker,
  OptionTrade,
  PerpStats,
} from '#schemas/events.ts';
import type { TradeLedger } from '../market/ledger.ts';
import type { SandboxMarket } from '../market/market.ts';
import { VENUE_SPECS } from '../market/venues.ts';
import { VenueHost, groupBy, str, type Client, type RestReply, venueServer, malformedFrame } from './host.ts';
import type { MalformedKind, ProtocolTimings, VenueServer, VenueServerContext } from './types.ts';
import { RecentTrades } from './recent-trades.ts';

/**
 * Bybit V5 public streams on /v5/public/{option,linear,spot} and REST /v5/market/instruments-info (cursor-paginated).
 * Topics: option publicTrade.{BASE}, tickers.{option}; linear publicTrade.{SYM}, tickers.{SYM} (snapshot then
 * delta per subscription), allLiquidation.{SYM}; spot publicTrade.{SYM}. Heartbeat: {"op":"ping"} -> pong (option
 * and linear/spot pong shapes differ); no ping for bybitIdleMs -> disconnect.
 */
const spec = VENUE_SPECS.bybit;
type Category = 'option' | 'linear' | 'spot';
const BASE_OF = (s: MarketSymbol): string => s.replace('USDT', '');

function categoryOf(path: string): Category | null {
  const m = /^\/v5\/public\/(option|linear|spot)$/.exec(path);
  return m ? (m[1] as Category) : null;
}

/** The running message sequence shared by envelopes (`cs`, ids) and linear trade `seq`s. */
interface BybitWire {
  readonly market: SandboxMarket;
  seq: number;
  /** Every generated option trade in /v5/market/recent-trade's row shape, keyed by base coin. */
  readonly recent: RecentTrades;
  /** Every generated perp (linear) and spot trade in the same endpoint's row shape, keyed by symbol. */
  readonly recentLinear: { readonly linear: RecentTrades; readonly spot: RecentTrades };
}

function nextSeq(w: BybitWire): number {
  return ++w.seq;
}

// --- frame encoders ---

function envelope(w: BybitWire, topic: string, ts: number, data: unknown, type = 'snapshot', withId = false): string {
  return JSON.stringify({
    ...(withId ? { id: `${topic}-${nextSeq(w)}-${ts}` } : {}),
    topic,
    ts,
    type,
    data,
    ...(withId ? {} : { cs: nextSeq(w) }),
  });
}

function optionTradeItem(market: SandboxMarket, t: OptionTrade): Record<string, unknown> {
  const q = market.optionQuote('bybit', t.instrument);
  return {
    i: t.tradeId,
    T: t.ts,
    p: str(t.price, 4),
    v: str(t.size, 4),
    S: t.side === 'buy' ? 'Buy' : 'Sell',
    s: t.instrument,
    BT: false,
    RPI: false,
    mP: str(q?.markUsd ?? t.price, 4),
    iP: str(t.indexPrice ?? 0, 4),
    mIv: str(q?.markIv ?? 0, 4),
    iv: str(t.iv ?? 0, 4),
  };
}

function linearTradeItem(w: BybitWire, t: LinearTrade): Record<string, unknown> {
  return {
    T: t.ts,
    s: t.instrument,
    S: t.side === 'buy' ? 'Buy' : 'Sell',
    v: str(t.size),
    p: str(t.price),
    L: t.side === 'buy' ? 'PlusTick' : 'MinusTick',
    i: t.tradeId,
    BT: false,
    seq: nextSeq(w),
  };
}

function liquidationItem(l: Liquidation): Record<string, unknown> {
  // S "Buy" = a long position was liquidated.
  return { T: l.ts, s: l.instrument, S: l.side === 'long' ? 'Buy' : 'Sell', v: str(l.size), p: str(l.price) };
}

function optionTickerData(t: OptionTicker): Record<string, string> {
  const m = t.markPrice ?? 0;
  return {
    symbol: t.instrument,
    bidPrice: str(m * 0.97, 4),
    bidSize: '10',
    bidIv: str(t.bidIv ?? 0, 4),
    askPrice: str(m * 1.03, 4),
    askSize: '10',
    askIv: str(t.askIv ?? 0, 4),
    lastPrice: str(m, 4),
    highPrice24h: str(m, 4),
    lowPrice24h: str(m, 4),
    markPrice: str(m, 8),
    indexPrice: str(t.indexPrice ?? 0, 4),
    markPriceIv: str(t.markIv ?? 0, 4),
    underlyingPrice: str(t.underlyingPrice ?? 0, 4),
    openInterest: str(t.openInterest ?? 0, 4),
    turnover24h: '0',
    volume24h: '0',
    totalVolume: '0',
    totalTurnover: '0',
    delta: str(t.delta ?? 0, 8),
    gamma: str(t.gamma ?? 0, 10),
    vega: str(t.vega ?? 0, 8),
    theta: str(t.theta ?? 0, 8),
    predictedDeliveryPrice: '0',
    change24h: '0',
  };
}

function perpTickerData(s: PerpStats): Record<string, string> {
  const mark = s.markPrice ?? 0;
  return {
    symbol: s.instrument,
    tickDirection: 'PlusTick',
    lastPrice: str(mark),
    markPrice: str(mark),
    indexPrice: str(s.indexPrice ?? 0),
    openInterest: str(s.openInterest ?? 0, 4),
    openInterestValue: str(s.openInterestUsd ?? 0, 2),
    fundingRate: str(s.fundingRate ?? 0, 8),
    nextFundingTime: String(s.nextFundingTime ?? ''),
    bid1Price: str(mark),
    bid1Size: '1',
    ask1Price: str(mark),
    ask1Size: '1',
  };
}

// --- publishing ---

/** Subscription key (`category|topic`) an event is published under, or null when Bybit has no stream for it. */
function subscriptionKey(e: MarketEvent): string | null {
  switch (e.type) {
    case 'option_trade':
      return `option|publicTrade.${BASE_OF(e.event.symbol)}`;
    case 'perp_trade':
      return `linear|publicTrade.${e.event.instrument}`;
    case 'spot_trade':
      return `spot|publicTrade.${e.event.instrument}`;
    case 'liquidation':
      return `linear|allLiquidation.${e.event.instrument}`;
    case 'option_ticker':
      return `option|tickers.${e.event.instrument}`;
    case 'perp_stats':
      return `linear|tickers.${e.event.instrument}`;
    default:
      return null;
  }
}

/** Linear tickers: the first push of a topic to a client is a snapshot, every later one a delta. */
function publishPerpTickers(host: VenueHost, w: BybitWire, key: string, topic: string, list: readonly MarketEvent[]): void {
  for (const e of list) {
    if (e.type !== 'perp_stats') continue;
    const data = perpTickerData(e.event);
    for (const c of host.clients) {
      if (!c.subs.has(key)) continue;
      const snapped = (c.state.get('snapshotted') as Set<string> | undefined) ?? new Set<string>();
      c.state.set('snapshotted', snapped);
      const type = snapped.has(topic) ? 'delta' : 'snapshot';
      if (host.send(c, envelope(w, topic, e.event.ts, data, type))) snapped.add(topic);
    }
  }
}

/** One topic's events of a step; returns how many clients got the trades / liquidations (tickers: 0). */
function publishTopic(host: VenueHost, w: BybitWire, key: string, list: readonly MarketEvent[]): number {
  const topic = key.slice(key.indexOf('|') + 1);
  const first = list[0];
  if (!first) return 0;
  const ts = first.event.ts;
  switch (first.type) {
    case 'option_trade':
      return host.broadcast(key, () =>
        envelope(
          w,
          topic,
          ts,
          list.map((e) => (e.type === 'option_trade' ? optionTradeItem(w.market, e.event) : null)),
          'snapshot',
          true,
        ),
      );
    case 'perp_trade':
    case 'spot_trade':
      return host.broadcast(key, () =>
        envelope(
          w,
          topic,
          ts,
          list.map((e) => (e.type === 'perp_trade' || e.type === 'spot_trade' ? linearTradeItem(w, e.event) : null)),
        ),
      );
    case 'liquidation':
      return host.broadcast(key, () =>
        envelope(
          w,
          topic,
          ts,
          list.map((e) => (e.type === 'liquidation' ? liquidationItem(e.event) : null)),
        ),
      );
    case 'option_ticker':
      for (const e of list)
        if (e.type === 'option_ticker')
          host.broadcast(key, () => envelope(w, topic, e.event.ts, optionTickerData(e.event), 'snapshot', true));
      return 0;
    case 'perp_stats':
      publishPerpTickers(host, w, key, topic, list);
      return 0;
    default:
      return 0;
  }
}

/** An option trade as /v5/market/recent-trade lists it (the publicTrade fields under their REST names). */
function recentTradeRow(item: Record<string, unknown>): Record<string, unknown> {
  return {
    execId: item['i'],
    symbol: item['s'],
    price: item['p'],
    size: item['v'],
    side: item['S'],
    time: String(item['T']),
    isBlockTrade: item['BT'],
    isRPITrade: false,
    mP: item['mP'],
    iP: item['iP'],
    mIv: item['mIv'],
    iv: item['iv'],
  };
}

/** A perp or spot trade as /v5/market/recent-trade?category=linear|spot lists it (no `seq`: the wire's sequence is left untouched). */
function recentLinearRow(t: LinearTrade): Record<string, unknown> {
  return {
    execId: t.tradeId,
    symbol: t.instrument,
    price: str(t.price),
    size: str(t.size),
    side: t.side === 'buy' ? 'Buy' : 'Sell',
    time: String(t.ts),
    isBlockTrade: false,
    isRPITrade: false,
  };
}

function publish(host: VenueHost, w: BybitWire, delivered: TradeLedger, events: readonly MarketEvent[]): void {
  for (const e of events) {
    if (e.type === 'option_trade')
      w.recent.add({ ts: e.event.ts, key: BASE_OF(e.event.symbol), wire: recentTradeRow(optionTradeItem(w.market, e.event)) });
    else if (e.type === 'perp_trade' || e.type === 'spot_trade') {
      w.recentLinear[e.type === 'perp_trade' ? 'linear' : 'spot'].add({
        ts: e.event.ts,
        key: e.event.instrument,
        wire: recentLinearRow(e.event),
      });
    }
  }
  const sent: MarketEvent[] = [];
  for (const [key, list] of groupBy(events, subscriptionKey)) if (publishTopic(host, w, key, list) > 0) sent.push(...list);
  delivered.recordEvents(sent);
}

// --- REST ---

/**
 * /v5/market/recent-trade, newest first: category=option&baseCoin=&limit= (≤ 1000, default 500);
 * category=linear&symbol= (≤ 1000, default 500); category=spot&symbol= (≤ 60, default 60).
 */
function recentTradeRest(w: BybitWire, q: URLSearchParams): RestReply {
  const category = q.get('category');
  const reply = (list: readonly Record<string, unknown>[]): RestReply => ({
    status: 200,
    body: { retCode: 0, retMsg: 'OK', result: { category, list }, retExtInfo: {}, time: Date.now() },
  });
  const limitOf = (max: number, dflt: number): number => Math.min(max, Math.max(1, Number(q.get('limit') ?? String(dflt)) || dflt));
  if (category === 'option')
    return reply(w.recent.query({ key: q.get('baseCoin') ?? 'BTC', limit: limitOf(1000, 500), order: 'desc' }).rows);
  const symbol = q.get('symbol');
  if ((category === 'linear' || category === 'spot') && symbol !== null) {
    return reply(
      w.recentLinear[category].query({ key: symbol, limit: category === 'spot' ? limitOf(60, 60) : limitOf(1000, 500), order: 'desc' })
        .rows,
    );
  }
  return { status: 200, body: { retCode: 10001, retMsg: 'params error: category / symbol', result: {}, time: Date.now() } };
}

function optionListing(i: Instrument): Record<string, unknown> {
  const s = spec.options.find((o) => o.symbol === i.symbol);
  return {
    symbol: i.instrument,
    status: 'Trading',
    baseCoin: BASE_OF(i.symbol),
    quoteCoin: 'USD',
    settleCoin: 'USDC',
    optionsType: i.optionType === 'call' ? 'Call' : 'Put',
    launchTime: String(i.ts),
    deliveryTime: String(i.expiry),
    deliveryFeeRate: '0.00015',
    priceFilter: { minPrice: String(s?.priceTick ?? 5), maxPrice: '10000000', tickSize: String(s?.priceTick ?? 5) },
    lotSizeFilter: { maxOrderQty: '10000', minOrderQty: String(s?.lot ?? 0.01), qtyStep: String(s?.lot ?? 0.01) },
    displayName: '',
  };
}

function perpListing(i: Instrument): Record<string, unknown> {
  const l = spec.perps.find((x) => x.instrument === i.instrument);
  return {
    symbol: i.instrument,
    contractType: 'LinearPerpetual',
    status: 'Trading',
    baseCoin: BASE_OF(i.symbol),
    quoteCoin: 'USDT',
    settleCoin: 'USDT',
    launchTime: String(i.ts),
    deliveryTime: '0',
    deliveryFeeRate: '',
    priceScale: '2',
    fundingInterval: 480,
    priceFilter: { minPrice: '0.1', maxPrice: '1999999.8', tickSize: '0.1' },
    lotSizeFilter: {
      maxOrderQty: '1190',
      minOrderQty: String(l?.lot ?? 0.001),
      qtyStep: String(l?.lot ?? 0.001),
      postOnlyMaxOrderQty: '1190',
    },
    unifiedMarginTrade: true,
    copyTrading: 'both',
  };
}

function spotListing(i: Instrument): Record<string, unknown> {
  const l = spec.spots.find((x) => x.instrument === i.instrument);
  return {
    symbol: i.instrument,
    baseCoin: BASE_OF(i.symbol),
    quoteCoin: 'USDT',
    innovation: '0',
    status: 'Trading',
    marginTrading: 'both',
    lotSizeFilter: {
      basePrecision: String(l?.lot ?? 0.00001),
      quotePrecision: '0.00000001',
      minOrderQty: String(l?.lot ?? 0.00001),
      maxOrderQty: '1000000',
    },
    priceFilter: { tickSize: '0.01' },
  };
}

function instrumentsRest(market: SandboxMarket, q: URLSearchParams): RestReply {
  const category = q.get('category');
  const ok = (result: unknown): RestReply => ({
    status: 200,
    body: { retCode: 0, retMsg: 'OK', result, retExtInfo: {}, time: Date.now() },
  });
  if (category !== 'option' && category !== 'linear' && category !== 'spot') {
    return { status: 200, body: { retCode: 10001, retMsg: 'params error: category', result: {}, retExtInfo: {}, time: Date.now() } };
  }
  const baseCoin = q.get('baseCoin');
  const symbol = q.get('symbol');
  const limit = Math.min(1000, Math.max(1, Number(q.get('limit') ?? 500)));
  const offset = q.get('cursor') ? Number(Buffer.from(q.get('cursor') ?? '', 'base64url').toString()) || 0 : 0;
  const all = market
    .instruments('bybit')
    .filter((i) => (category === 'option' ? i.kind === 'option' : category === 'linear' ? i.kind === 'perp' : i.kind === 'spot'))
    .filter((i) => (!baseCoin || BASE_OF(i.symbol) === baseCoin) && (!symbol || i.instrument === symbol));
  const page = all.slice(offset, offset + limit);
  const next = offset + limit < all.length ? Buffer.from(String(offset + limit)).toString('base64url') : '';
  const list = page.map((i) => (i.kind === 'option' ? optionListing(i) : i.kind === 'perp' ? perpListing(i) : spotListing(i)));
  return ok({ category, nextPageCursor: next, list });
}

// --- WS protocol ---

function validTopic(cat: Category, topic: string): boolean {
  const sym = (s: string): boolean => spec.perps.some((p) => p.instrument === s);
  const [head, ...rest] = topic.split('.');
  const arg = rest.join('.');
  if (cat === 'option')
    return (
      (head === 'publicTrade' && /^[A-Z]+$/.test(arg)) ||
      (head === 'tickers' && /^[A-Z]+-\d{1,2}[A-Z]{3}\d{2}-[\d.]+-[CP](-USDT)?$/.test(arg))
    );
  if (cat === 'linear') return (head === 'publicTrade' || head === 'tickers' || head === 'allLiquidation') && sym(arg);
  return head === 'publicTrade' && spec.spots.some((p) => p.instrument === arg);
}

/** (Re)starts the idle timer: no ping for bybitIdleMs closes the connection. */
function armIdle(timings: ProtocolTimings, c: Client): void {
  const old = c.state.get('idle') as NodeJS.Timeout | undefined;
  if (old) {
    clearTimeout(old);
    const i = c.timers.indexOf(old);
    if (i >= 0) c.timers.splice(i, 1);
  }
  const t = setTimeout(() => c.ws.close(1000, 'idle'), timings.bybitIdleMs);
  c.state.set('idle', t);
  c.timers.push(t);
}

interface BybitRequest {
  op?: unknown;
  args?: unknown;
  req_id?: unknown;
}

function pong(cat: Category, c: Client, reqId: string | undefined): string {
  return cat === 'option'
    ? JSON.stringify({ ...(reqId ? { req_id: reqId } : {}), op: 'pong', args: [String(Date.now())], conn_id: c.id })
    : JSON.stringify({ success: true, ret_msg: 'pong', conn_id: c.id, ...(reqId ? { req_id: reqId } : {}), op: 'ping' });
}

/** subscribe / unsubscribe: valid topics applied; the ack shape differs between option and linear/spot. */
function onSubscription(host: VenueHost, cat: Category, c: Client, msg: BybitRequest, reqId: string | undefined): void {
  const args = Array.isArray(msg.args) ? msg.args.filter((a): a is string => typeof a === 'string') : [];
  const good = args.filter((a) => validTopic(cat, a));
  const bad = args.filter((a) => !validTopic(cat, a));
  for (const a of good) {
    if (msg.op === 'subscribe') c.subs.add(`${cat}|${a}`);
    else c.subs.delete(`${cat}|${a}`);
  }
  if (cat === 'option') {
    host.send(
      c,
      JSON.stringify({
        success: bad.length === 0,
        ret_msg: '',
        conn_id: c.id,
        ...(reqId ? { req_id: reqId } : {}),
        data: { failTopics: bad, successTopics: good },
        type: 'COMMAND_RESP',
      }),
    );
  } else {
    host.send(
      c,
      JSON.stringify({
        success: bad.length === 0,
        ret_msg: bad.length ? `error:handler not found,topic:${bad.join(',')}` : '',
        conn_id: c.id,
        ...(reqId ? { req_id: reqId } : {}),
        op: msg.op,
      }),
    );
  }
}

function onMessage(host: VenueHost, timings: ProtocolTimings, c: Client, text: string): void {
  const cat = categoryOf(c.path) ?? 'linear';
  let msg: BybitRequest;
  try {
    msg = JSON.parse(text) as BybitRequest;
  } catch {
    host.send(c, JSON.stringify({ success: false, ret_msg: 'error:invalid op', conn_id: c.id, op: '' }));
    return;
  }
  const reqId = typeof msg.req_id === 'string' ? msg.req_id : undefined;
  if (msg.op === 'ping') {
    armIdle(timings, c);
    host.send(c, pong(cat, c, reqId));
    return;
  }
  if (msg.op === 'subscribe' || msg.op === 'unsubscribe') {
    onSubscription(host, cat, c, msg, reqId);
    return;
  }
  host.send(c, JSON.stringify({ success: false, ret_msg: `error:invalid op ${String(msg.op)}`, conn_id: c.id, op: String(msg.op) }));
}

function malformed(host: VenueHost, kind: MalformedKind): number {
  const good = JSON.stringify({
    id: 'publicTrade.BTC-1-1',
    topic: 'publicTrade.BTC',
    ts: Date.now(),
    type: 'snapshot',
    data: [{ i: 'x', T: Date.now(), p: '985', v: '0.01', S: 'Sell', s: 'BTC-28APR23-29500-C', BT: false }],
  });
  const frame = malformedFrame(kind, good, 'Internal Server Error', (g) =>
    g.replace('"p":"985"', '"p":"nine"').replace('"S":"Sell"', '"S":42'),
  );
  return host.sendAll(frame);
}

export async function startBybitServer(ctx: VenueServerContext, port = 0): Promise<VenueServer> {
  const { market, delivered, timings } = ctx;
  const wire: BybitWire = {
    market,
    seq: 3_000_000_000,
    recent: new RecentTrades(),
    recentLinear: { linear: new RecentTrades(), spot: new RecentTrades() },
  };
  const host: VenueHost = new VenueHost('bybit', {
    wsPaths: (p) => categoryOf(p) !== null,
    rest: (path, q) =>
      path === '/v5/market/instruments-info'
        ? instrumentsRest(market, q)
        : path === '/v5/market/recent-trade'
          ? recentTradeRest(wire, q)
          : null,
    onConnect: (c) => armIdle(timings, c),
    onMessage: (c, text) => onMessage(host, timings, c, text),
  });
  const bound = await host.listen(port);
  const ws = (cat: Category): string => `ws://127.0.0.1:${bound}/v5/public/${cat}`;
  return venueServer(
    'bybit',
    host,
    { rest: `http://127.0.0.1:${bound}`, ws: { option: ws('option'), linear: ws('linear'), spot: ws('spot') } },
    (events) => publish(host, wire, delivered, events),
    (kind) => malformed(host, kind),
  );
}
