import { volatilityIndexRest } from './deribit-dvol.ts';
import type { Instrument, LinearTrade, MarketEvent, OptionTicker, OptionTrade, PerpStats } from '#schemas/events.ts';
import type { TradeLedger } from '../market/ledger.ts';
import { RecentTrades } from './recent-trades.ts';
import type { SandboxMarket } from '../market/market.ts';
import { VENUE_SPECS } from '../market/venues.ts';
import { VenueHost, groupBy, type Client, type RestReply, venueServer, malformedFrame } from './host.ts';
import type { MalformedKind, ProtocolTimings, VenueServer, VenueServerContext } from './types.ts';

/**
 * Deribit JSON-RPC over WebSocket (/ws/api/v2) and REST (/api/v2/public/get_instruments, get_volatility_index_data,
 * get_last_trades_by_currency_and_time).
 * Channels: trades.option.{CUR}.100ms, trades.{instrument}.100ms (perps carry `liquidation`), ticker.{instrument}.100ms,
 * deribit_price_index.{idx}, deribit_volatility_index.{idx}. Heartbeat: public/set_heartbeat -> test_request,
 * unanswered test_request -> disconnect.
 */
const PERPETUAL_EXPIRY = 32503708800000;
const spec = VENUE_SPECS.deribit;

/** What the trade encoders carry between publishes: per-instrument trade_seq and the ids of liquidation prints. */
interface TradeWireState {
  readonly market: SandboxMarket;
  readonly seq: Map<string, number>;
  readonly liquidationIds: Set<string>;
  /** Every generated trade's wire object, keyed `<currency>:<option|future>`, for get_last_trades_by_currency_and_time. */
  readonly recent: RecentTrades;
}

type TradeEvent = Extract<MarketEvent, { type: 'option_trade' | 'perp_trade' }>;

function notification(channel: string, data: unknown): string {
  return JSON.stringify({ jsonrpc: '2.0', method: 'subscription', params: { channel, data } });
}

function currencyOf(instrument: string): string {
  const head = instrument.split('-')[0] ?? '';
  return head.includes('_') ? (head.split('_')[1] ?? head) : head;
}

function contractsOf(instrument: string): { contractSize: number; inverse: boolean } {
  const perp = spec.perps.find((p) => p.instrument === instrument);
  return perp ? { contractSize: perp.contractSize, inverse: perp.inverse } : { contractSize: 1, inverse: false };
}

function nextSeq(w: TradeWireState, instrument: string): number {
  const s = (w.seq.get(instrument) ?? 0) + 1;
  w.seq.set(instrument, s);
  return s;
}

// --- frame encoders ---

function optionTradeData(w: TradeWireState, t: OptionTrade): Record<string, unknown> {
  const s = nextSeq(w, t.instrument);
  const q = w.market.optionQuote('deribit', t.instrument);
  return {
    trade_seq: s,
    trade_id: t.tradeId,
    timestamp: t.ts,
    tick_direction: t.side === 'buy' ? 0 : 2,
    price: t.price,
    mark_price: q?.markVenue ?? t.price,
    iv: Number(((t.iv ?? 0) * 100).toFixed(2)),
    instrument_name: t.instrument,
    index_price: t.indexPrice,
    direction: t.side,
    amount: t.size,
    contracts: t.size,
  };
}

function perpTradeData(w: TradeWireState, t: LinearTrade): Record<string, unknown> {
  const s = nextSeq(w, t.instrument);
  const { contractSize, inverse } = contractsOf(t.instrument);
  const amount = inverse ? Math.round((t.size * t.price) / contractSize) * contractSize : t.size;
  return {
    trade_seq: s,
    trade_id: t.tradeId,
    timestamp: t.ts,
    tick_direction: t.side === 'buy' ? 0 : 2,
    price: t.price,
    mark_price: t.price,
    instrument_name: t.instrument,
    index_price: w.market.index(t.symbol),
    direction: t.side,
    amount,
    contracts: Number((amount / contractSize).toFixed(8)),
    ...(w.liquidationIds.has(t.tradeId) ? { liquidation: 'T' } : {}),
  };
}

function optionTickerData(t: OptionTicker): Record<string, unknown> {
  const series = spec.options.find((o) => o.symbol === t.symbol);
  const inverse = series?.inverse ?? true;
  const idx = t.indexPrice ?? 1;
  const toVenue = (usd: number): number => (inverse ? Number((usd / idx).toFixed(8)) : Number(usd.toFixed(4)));
  const mark = toVenue(t.markPrice ?? 0);
  const pct = (x: number | null): number => Number(((x ?? 0) * 100).toFixed(2));
  return {
    underlying_price: t.underlyingPrice,
    underlying_index: 'index_price',
    timestamp: t.ts,
    stats: { volume: null, price_change: null, low: null, high: null },
    state: 'open',
    settlement_price: mark,
    open_interest: t.openInterest,
    min_price: 0.0001,
    max_price: Math.max(mark * 3, 0.01),
    mark_price: mark,
    mark_iv: pct(t.markIv),
    bid_iv: pct(t.bidIv),
    ask_iv: pct(t.askIv),
    last_price: null,
    interest_rate: 0,
    instrument_name: t.instrument,
    index_price: t.indexPrice,
    estimated_delivery_price: t.indexPrice,
    greeks: { delta: t.delta, gamma: t.gamma, vega: t.vega, theta: t.theta, rho: 0 },
    best_bid_price: toVenue((t.markPrice ?? 0) * 0.97),
    best_ask_price: toVenue((t.markPrice ?? 0) * 1.03),
    best_bid_amount: 10,
    best_ask_amount: 10,
  };
}

function perpTickerData(s: PerpStats): Record<string, unknown> {
  const { inverse } = contractsOf(s.instrument);
  return {
    timestamp: s.ts,
    stats: { volume: null, price_change: null, low: null, high: null },
    state: 'open',
    settlement_price: s.markPrice,
    open_interest: inverse ? Math.round((s.openInterest ?? 0) * (s.markPrice ?? 0)) : s.openInterest,
    min_price: (s.markPrice ?? 0) * 0.97,
    max_price: (s.markPrice ?? 0) * 1.03,
    mark_price: s.markPrice,
    last_price: s.markPrice,
    instrument_name: s.instrument,
    index_price: s.indexPrice,
    estimated_delivery_price: s.indexPrice,
    funding_8h: s.fundingRate,
    current_funding: s.fundingRate,
    interest_value: 0,
    best_bid_price: s.markPrice,
    best_ask_price: s.markPrice,
    best_bid_amount: 1000,
    best_ask_amount: 1000,
  };
}

// --- publishing ---

/** Trades on the currency-wide and per-instrument channels; returns the events that reached a subscriber. */
function publishTrades(host: VenueHost, w: TradeWireState, events: readonly MarketEvent[]): Set<MarketEvent> {
  const sent = new Set<MarketEvent>();
  const optTrades = events.filter((e): e is Extract<MarketEvent, { type: 'option_trade' }> => e.type === 'option_trade');
  const perpTrades = events.filter((e): e is Extract<MarketEvent, { type: 'perp_trade' }> => e.type === 'perp_trade');
  const encoded = new Map<MarketEvent, Record<string, unknown>>();
  for (const e of optTrades) encoded.set(e, optionTradeData(w, e.event));
  for (const e of perpTrades) encoded.set(e, perpTradeData(w, e.event));
  for (const e of [...optTrades, ...perpTrades]) {
    const wire = encoded.get(e);
    if (wire)
      w.recent.add({ ts: e.event.ts, key: `${currencyOf(e.event.instrument)}:${e.type === 'option_trade' ? 'option' : 'future'}`, wire });
  }
  const send = (channel: string, list: readonly MarketEvent[]): void => {
    if (
      host.broadcast(channel, () =>
        notification(
          channel,
          list.map((e) => encoded.get(e)),
        ),
      ) > 0
    )
      for (const e of list) sent.add(e);
  };
  for (const [cur, list] of groupBy(optTrades, (e) => currencyOf(e.event.instrument))) {
    send(`trades.option.${cur}.100ms`, list);
    send('trades.option.any.100ms', list);
  }
  for (const [inst, list] of groupBy<TradeEvent>([...optTrades, ...perpTrades], (e) => e.event.instrument)) {
    send(`trades.${inst}.100ms`, list);
  }
  return sent;
}

/** Option and perp tickers, index prices and DVOL, one notification per event. */
function publishTickersAndIndexes(host: VenueHost, events: readonly MarketEvent[]): void {
  for (const e of events) {
    if (e.type === 'option_ticker') {
      const ch = `ticker.${e.event.instrument}.100ms`;
      host.broadcast(ch, () => notification(ch, optionTickerData(e.event)));
    } else if (e.type === 'perp_stats') {
      const ch = `ticker.${e.event.instrument}.100ms`;
      host.broadcast(ch, () => notification(ch, perpTickerData(e.event)));
    } else if (e.type === 'index') {
      const ev = e.event;
      if (ev.kind === 'index') {
        const ch = `deribit_price_index.${ev.name}`;
        host.broadcast(ch, () => notification(ch, { index_name: ev.name, price: ev.value, timestamp: ev.ts }));
      } else {
        const ch = `deribit_volatility_index.${ev.name}`;
        host.broadcast(ch, () => notification(ch, { index_name: ev.name, volatility: ev.value, timestamp: ev.ts }));
      }
    }
  }
}

function publish(host: VenueHost, w: TradeWireState, delivered: TradeLedger, events: readonly MarketEvent[]): void {
  for (const e of events) if (e.type === 'liquidation') w.liquidationIds.add(e.event.id.replace('deribit:liq:', ''));
  const sent = publishTrades(host, w, events);
  publishTickersAndIndexes(host, events);
  // A liquidation reached the wire when the trade it printed as did.
  const sentTradeIds = new Set([...sent].map((e) => (e.type === 'perp_trade' ? e.event.tradeId : '')));
  for (const e of events) if (e.type === 'liquidation' && sentTradeIds.has(e.event.id.replace('deribit:liq:', ''))) sent.add(e);
  delivered.recordEvents([...sent]);
  if (w.liquidationIds.size > 10_000) w.liquidationIds.clear();
}

// --- REST ---

function listingItem(ins: Instrument, id: number): Record<string, unknown> {
  const apiKind = ins.kind === 'option' ? 'option' : 'future';
  const base = (ins.instrument.split('-')[0] ?? '').split('_')[0] ?? '';
  const series = spec.options.find((o) => o.symbol === ins.symbol);
  const perp = spec.perps.find((p) => p.instrument === ins.instrument);
  const days = ins.expiry ? (ins.expiry - ins.ts) / 86_400_000 : 0;
  return {
    instrument_name: ins.instrument,
    instrument_id: id,
    kind: apiKind,
    is_active: ins.active,
    base_currency: base,
    quote_currency: ins.quoteCurrency,
    counter_currency: ins.quoteCurrency,
    settlement_currency: ins.settlementCurrency,
    contract_size: ins.contractSize,
    ...(ins.kind === 'option'
      ? {
          option_type: ins.optionType,
          strike: ins.strike,
          settlement_period: days <= 1 ? 'day' : days <= 7 ? 'week' : 'month',
          expiration_timestamp: ins.expiry,
          tick_size: series?.priceTick ?? 0.0001,
          min_trade_amount: series?.lot ?? 0.1,
        }
      : { settlement_period: 'perpetual', expiration_timestamp: PERPETUAL_EXPIRY, tick_size: 0.5, min_trade_amount: perp?.lot ?? 1 }),
    creation_timestamp: ins.ts,
    price_index: `${base.toLowerCase()}_${ins.settlementCurrency === 'USDC' ? 'usdc' : 'usd'}`,
    maker_commission: 0.0003,
    taker_commission: 0.0003,
    block_trade_commission: 0.0003,
    rfq: false,
  };
}

function instrumentsRest(market: SandboxMarket, query: URLSearchParams): RestReply {
  const currency = query.get('currency');
  const kind = query.get('kind');
  if (!currency)
    return {
      status: 400,
      body: {
        jsonrpc: '2.0',
        error: { message: 'Invalid params', data: { reason: 'currency required', param: 'currency' }, code: -32602 },
      },
    };
  const now = Date.now();
  const result: Record<string, unknown>[] = [];
  let id = 1;
  for (const ins of market.instruments('deribit')) {
    if (ins.kind === 'spot') continue;
    if (kind && kind !== (ins.kind === 'option' ? 'option' : 'future')) continue;
    if (currency !== 'any' && currency !== currencyOf(ins.instrument)) continue;
    result.push(listingItem(ins, id++));
  }
  return { status: 200, body: { jsonrpc: '2.0', result, usIn: now * 1000, usOut: now * 1000 + 50, usDiff: 50, testnet: false } };
}

/** public/get_last_trades_by_currency_and_time: currency, kind (option | future), start/end_timestamp, count ≤ 1000, sorting. */
function recentTradesRest(w: TradeWireState, query: URLSearchParams): RestReply {
  const currency = query.get('currency');
  const kind = query.get('kind') ?? 'any';
  const from = Number(query.get('start_timestamp'));
  const to = Number(query.get('end_timestamp'));
  const count = Math.min(1000, Math.max(1, Number(query.get('count') ?? '10') || 10));
  if (!currency || !Number.isFinite(from) || !Number.isFinite(to) || (kind !== 'option' && kind !== 'future')) {
    return {
      status: 400,
      body: {
        jsonrpc: '2.0',
        error: { message: 'Invalid params', data: { reason: 'currency, kind, start_timestamp, end_timestamp required' }, code: -32602 },
      },
    };
  }
  const { rows, more } = w.recent.query({
    key: `${currency}:${kind}`,
    fromMs: from,
    toMs: to,
    limit: count,
    order: query.get('sorting') === 'desc' ? 'desc' : 'asc',
  });
  const now = Date.now();
  return {
    status: 200,
    body: {
      jsonrpc: '2.0',
      result: { trades: rows, has_more: more },
      usIn: now * 1000,
      usOut: now * 1000 + 50,
      usDiff: 50,
      testnet: false,
    },
  };
}

// --- WS protocol ---

const KNOWN =
  /^(trades\.option\.(BTC|ETH|USDC|any)\.100ms|trades\.[A-Z0-9_]+-[A-Za-z0-9_-]+\.100ms|ticker\.[A-Z0-9_]+-[A-Za-z0-9_-]+\.100ms|deribit_price_index\.[a-z_]+|deribit_volatility_index\.[a-z_]+)$/;

interface RpcRequest {
  id?: unknown;
  method?: unknown;
  params?: { channels?: unknown; interval?: unknown };
}

function reply(host: VenueHost, c: Client, id: unknown, result: unknown): void {
  host.send(
    c,
    JSON.stringify({ jsonrpc: '2.0', id, result, usIn: Date.now() * 1000, usOut: Date.now() * 1000 + 20, usDiff: 20, testnet: false }),
  );
}

function rpcError(host: VenueHost, c: Client, id: unknown, code: number, message: string): void {
  host.send(c, JSON.stringify({ jsonrpc: '2.0', id, error: { code, message }, testnet: false }));
}

function stopHeartbeat(c: Client): void {
  for (const t of c.timers) clearInterval(t);
  c.timers.length = 0;
}

/** test_request every intervalSec; one still unanswered at the next beat closes the connection. */
function startHeartbeat(host: VenueHost, c: Client, intervalSec: number): void {
  stopHeartbeat(c);
  c.state.set('hbPending', false);
  c.timers.push(
    setInterval(() => {
      if (c.state.get('hbPending') === true) {
        // The client did not answer the previous test_request.
        c.ws.close(1000, 'heartbeat timeout');
        return;
      }
      c.state.set('hbPending', true);
      host.send(c, JSON.stringify({ jsonrpc: '2.0', method: 'heartbeat', params: { type: 'test_request' } }));
    }, intervalSec * 1000),
  );
}

/** public/subscribe and public/unsubscribe: the known channels are applied and acknowledged. */
function onSubscription(host: VenueHost, c: Client, id: unknown, msg: RpcRequest): void {
  const chans = Array.isArray(msg.params?.channels) ? msg.params.channels.filter((x): x is string => typeof x === 'string') : [];
  const ok = chans.filter((ch) => KNOWN.test(ch));
  for (const ch of ok) {
    if (msg.method === 'public/subscribe') c.subs.add(ch);
    else c.subs.delete(ch);
  }
  reply(host, c, id, ok);
}

function onSetHeartbeat(host: VenueHost, timings: ProtocolTimings, c: Client, id: unknown, msg: RpcRequest): void {
  const interval = Number(msg.params?.interval);
  if (!Number.isFinite(interval) || interval < timings.deribitMinHeartbeatSec) {
    rpcError(host, c, id, 11029, 'invalid_arguments');
    return;
  }
  startHeartbeat(host, c, interval);
  reply(host, c, id, 'ok');
}

function onMessage(host: VenueHost, market: SandboxMarket, timings: ProtocolTimings, c: Client, text: string): void {
  let msg: RpcRequest;
  try {
    msg = JSON.parse(text) as RpcRequest;
  } catch {
    rpcError(host, c, null, -32700, 'Parse error');
    return;
  }
  const id = msg.id ?? null;
  switch (msg.method) {
    case 'public/subscribe':
    case 'public/unsubscribe':
      onSubscription(host, c, id, msg);
      return;
    case 'public/set_heartbeat':
      onSetHeartbeat(host, timings, c, id, msg);
      return;
    case 'public/disable_heartbeat':
      stopHeartbeat(c);
      reply(host, c, id, 'ok');
      return;
    case 'public/test':
      c.state.set('hbPending', false);
      reply(host, c, id, { version: '1.2.26' });
      return;
    case 'public/get_time':
      reply(host, c, id, Date.now());
      return;
    case 'public/get_instruments':
      reply(
        host,
        c,
        id,
        (
          instrumentsRest(market, new URLSearchParams(Object.entries((msg.params ?? {}) as Record<string, string>))).body as {
            result: unknown;
          }
        ).result,
      );
      return;
    default:
      rpcError(host, c, id, -32601, 'Method not found');
  }
}

function malformed(host: VenueHost, kind: MalformedKind): number {
  const good = notification('trades.option.BTC.100ms', [
    {
      trade_seq: 1,
      trade_id: 'x1',
      timestamp: Date.now(),
      price: 0.01,
      instrument_name: 'BTC-27DEC24-100000-C',
      direction: 'buy',
      amount: 1,
    },
  ]);
  const frame = malformedFrame(kind, good, '<html>502 Bad Gateway</html>', (g) =>
    g.replace('"price":0.01', '"price":"abc"').replace('"amount":1', '"amount":null'),
  );
  return host.sendAll(frame);
}

export async function startDeribitServer(ctx: VenueServerContext, port = 0): Promise<VenueServer> {
  const { market, delivered, timings } = ctx;
  const wire: TradeWireState = { market, seq: new Map(), liquidationIds: new Set(), recent: new RecentTrades() };
  const host: VenueHost = new VenueHost('deribit', {
    wsPaths: (p) => p === '/ws/api/v2',
    rest: (path, query) => {
      if (path === '/api/v2/public/get_instruments') return instrumentsRest(market, query);
      if (path === '/api/v2/public/get_last_trades_by_currency_and_time') return recentTradesRest(wire, query);
      return path === '/api/v2/public/get_volatility_index_data' ? volatilityIndexRest(query, Date.now()) : null;
    },
    onMessage: (c, text) => onMessage(host, market, timings, c, text),
  });
  const bound = await host.listen(port);
  return venueServer(
    'deribit',
    host,
    { rest: `http://127.0.0.1:${bound}`, ws: { main: `ws://127.0.0.1:${bound}/ws/api/v2` } },
    (events) => publish(host, wire, delivered, events),
    (kind) => malformed(host, kind),
  );
}
