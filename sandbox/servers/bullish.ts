import type { IndexPrice, Instrument, LinearTrade, MarketEvent, OptionTicker, OptionTrade, PerpStats } from '#schemas/events.ts';
import type { TradeLedger } from '../market/ledger.ts';
import type { SandboxMarket } from '../market/market.ts';
import { VENUE_SPECS } from '../market/venues.ts';
import { VenueHost, str, type Client, type RestReply, venueServer, malformedFrame } from './host.ts';
import type { MalformedKind, ProtocolTimings, VenueServer, VenueServerContext } from './types.ts';

/**
 * Bullish: REST GET /trading-api/v1/markets and three WebSocket paths, JSON-RPC commands `subscribe` (one per symbol
 * / asset) and `keepalivePing`. /trading-api/v1/market-data/trades `anonymousTrades` (a `snapshot` of recent trades
 * on subscribe, then `update`s; the trade's `side` is the reporting party's, taker side = isTaker ? side : opposite),
 * /trading-api/v1/market-data/tick `tick` (V1TATickerResponse), /trading-api/v1/index-data `indexPrice`. Option
 * timestamps are ms strings, perp trade timestamps 19-digit ns strings. `V1TAHeartbeat` pushes every `bullishHeartbeatMs`.
 */
const spec = VENUE_SPECS.bullish;
const PATHS = {
  '/trading-api/v1/market-data/trades': 'anonymousTrades',
  '/trading-api/v1/market-data/tick': 'tick',
  '/trading-api/v1/index-data': 'indexPrice',
} as const;
type Path = keyof typeof PATHS;
const RECENT = 5;

const isPath = (p: string): p is Path => p in PATHS;
const baseOf = (name: string): string => name.split('-')[0] ?? '';

function listingItem(i: Instrument): Record<string, unknown> {
  const base = baseOf(i.instrument);
  const common = {
    symbol: i.instrument,
    baseSymbol: base,
    quoteSymbol: 'USDC',
    underlyingBaseSymbol: base,
    underlyingQuoteSymbol: 'USDC',
    settlementAssetSymbol: 'USDC',
    contractMultiplier: String(i.contractSize),
    marketEnabled: i.active,
  };
  if (i.kind === 'perp') {
    const p = spec.perps.find((x) => x.instrument === i.instrument);
    return { ...common, marketType: 'PERPETUAL', tickSize: '0.1', minQuantityLimit: String(p?.lot ?? 0.0001) };
  }
  const s = spec.options.find((o) => o.symbol === i.symbol);
  return {
    ...common,
    marketType: 'OPTION',
    expiryDatetime: new Date(i.expiry ?? 0).toISOString(),
    optionStrikePrice: String(i.strike),
    optionType: i.optionType === 'call' ? 'CALL' : 'PUT',
    tickSize: String(s?.priceTick ?? 5),
    minQuantityLimit: String(s?.lot ?? 0.01),
  };
}

type TradeEvent = Extract<MarketEvent, { type: 'option_trade' | 'perp_trade' }>;

/** What the server keeps between publishes: recent trades per symbol (the subscribe snapshot), the print count. */
interface BullishWire {
  readonly market: SandboxMarket;
  readonly recent: Map<string, Record<string, unknown>[]>;
  printed: number;
  /** The listing's names, cached per simulated instant (subscriptions are checked against it). */
  listing: { at: number; names: Set<string> } | null;
}

function listedNames(w: BullishWire): Set<string> {
  if (w.listing?.at !== w.market.now)
    w.listing = { at: w.market.now, names: new Set(w.market.instruments('bullish').map((i) => i.instrument)) };
  return w.listing.names;
}

// --- frame encoders ---

function tradeItem(w: BullishWire, t: OptionTrade | LinearTrade, perp: boolean): Record<string, unknown> {
  // Half the prints are reported from the maker's side (isTaker false, side = the maker's side).
  const asTaker = w.printed++ % 2 === 0;
  const side = asTaker === (t.side === 'buy') ? 'BUY' : 'SELL';
  const ms = String(t.ts);
  const stamp = perp ? `${ms}000000` : ms;
  return {
    symbol: t.instrument,
    tradeId: t.tradeId,
    price: str(t.price, 4),
    quantity: str(t.size, 8),
    side,
    isTaker: asTaker,
    createdAtTimestamp: stamp,
    publishedAtTimestamp: stamp,
    createdAtDatetime: new Date(t.ts).toISOString(),
  };
}

function tickFrame(e: OptionTicker | PerpStats, option: boolean, first: boolean): string {
  const m = e.markPrice ?? 0;
  const common = {
    symbol: e.instrument,
    type: 'ticker',
    createdAtTimestamp: String(e.ts),
    publishedAtTimestamp: String(e.ts + 5),
    createdAtDatetime: new Date(e.ts).toISOString(),
    markPrice: str(m, 4),
    bestBid: str(m * (option ? 0.97 : 0.9999), 4),
    bestAsk: str(m * (option ? 1.03 : 1.0001), 4),
    bidVolume: '1',
    askVolume: '1',
    last: null,
    baseVolume: '0',
    quoteVolume: '0',
  };
  const data =
    'markIv' in e
      ? {
          ...common,
          openInterest: str(e.openInterest ?? 0, 8),
          openInterestUSD: str((e.openInterest ?? 0) * (e.indexPrice ?? 0), 4),
          delta: str(e.delta ?? 0, 8),
          gamma: str(e.gamma ?? 0, 10),
          theta: str(e.theta ?? 0, 4),
          vega: str(e.vega ?? 0, 4),
          impliedVolatility: str(e.markIv ?? 0, 4),
        }
      : {
          ...common,
          fundingRate: str(e.fundingRate ?? 0, 8),
          openInterest: str(e.openInterest ?? 0, 8),
          openInterestUSD: str(e.openInterestUsd ?? 0, 4),
        };
  return JSON.stringify({ type: first ? 'snapshot' : 'update', dataType: 'V1TATickerResponse', data });
}

function indexFrame(ev: IndexPrice): string {
  return JSON.stringify({
    type: 'update',
    dataType: 'V1TAIndexPrice',
    data: {
      price: str(ev.value, 4),
      assetSymbol: ev.name,
      updatedAtDatetime: new Date(ev.ts).toISOString(),
      updatedAtTimestamp: String(ev.ts),
    },
  });
}

function tradeSnapshotFrame(symbol: string, items: readonly Record<string, unknown>[]): string {
  const last = items.at(-1);
  return JSON.stringify({
    type: 'snapshot',
    dataType: 'V1TAAnonymousTradeUpdate',
    data: {
      symbol,
      createdAtTimestamp: last?.['createdAtTimestamp'] ?? String(Date.now()),
      publishedAtTimestamp: last?.['publishedAtTimestamp'] ?? String(Date.now()),
      trades: items,
    },
  });
}

// --- publishing ---

/** One anonymousTrades update per symbol; the symbol's recent trades are kept for later subscribers' snapshots. */
function publishTrades(host: VenueHost, w: BullishWire, events: readonly MarketEvent[]): MarketEvent[] {
  const sent: MarketEvent[] = [];
  const bySymbol = new Map<string, TradeEvent[]>();
  for (const e of events) {
    if (e.type !== 'option_trade' && e.type !== 'perp_trade') continue;
    let list = bySymbol.get(e.event.instrument);
    if (!list) bySymbol.set(e.event.instrument, (list = []));
    list.push(e);
  }
  for (const [symbol, list] of bySymbol) {
    const items = list.map((e) => tradeItem(w, e.event, e.type === 'perp_trade'));
    const last = items.at(-1);
    const frame = JSON.stringify({
      type: 'update',
      dataType: 'V1TAAnonymousTradeUpdate',
      data: {
        symbol,
        createdAtTimestamp: last?.['createdAtTimestamp'],
        publishedAtTimestamp: last?.['publishedAtTimestamp'],
        trades: items,
      },
    });
    if (host.broadcast(`anonymousTrades|${symbol}`, frame) > 0) sent.push(...list);
    w.recent.set(symbol, [...(w.recent.get(symbol) ?? []), ...items].slice(-RECENT));
  }
  return sent;
}

/** Ticks (a client's first tick of a symbol is a snapshot, then updates) and index prices. */
function publishTicksAndIndexes(host: VenueHost, events: readonly MarketEvent[]): void {
  for (const e of events) {
    if (e.type === 'option_ticker' || e.type === 'perp_stats') {
      const key = `tick|${e.event.instrument}`;
      for (const c of host.clients) {
        if (!c.subs.has(key)) continue;
        const first = c.state.get(key) !== true;
        if (host.send(c, tickFrame(e.event, e.type === 'option_ticker', first))) c.state.set(key, true);
      }
    } else if (e.type === 'index') {
      const ev = e.event;
      host.broadcast(`indexPrice|${ev.name}`, () => indexFrame(ev));
    }
  }
}

function publish(host: VenueHost, w: BullishWire, delivered: TradeLedger, events: readonly MarketEvent[]): void {
  const sent = publishTrades(host, w, events);
  publishTicksAndIndexes(host, events);
  delivered.recordEvents(sent);
}

// --- REST ---

function marketsRest(market: SandboxMarket): RestReply {
  return {
    status: 200,
    body: [
      ...market
        .instruments('bullish')
        .filter((i) => i.kind === 'perp' || i.kind === 'option')
        .map(listingItem),
      // A spot pair, as the venue lists them (the connector does not track spot).
      { symbol: 'BTCUSDC', marketType: 'SPOT', baseSymbol: 'BTC', quoteSymbol: 'USDC', marketEnabled: true },
    ],
  };
}

// --- WS protocol ---

interface BullishCommand {
  id?: unknown;
  method?: unknown;
  params?: { topic?: unknown; symbol?: unknown; assetSymbol?: unknown };
}

/** subscribe / unsubscribe of the topic the connection's path serves; a trades subscription gets its snapshot. */
function onSubscription(host: VenueHost, w: BullishWire, c: Client, msg: BullishCommand, id: string | number | null): void {
  const error = (message: string): void => void host.send(c, JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32602, message } }));
  const topic = msg.params?.topic;
  if (!isPath(c.path) || topic !== PATHS[c.path]) return error(`Invalid topic for ${c.path}`);
  const target = topic === 'indexPrice' ? msg.params?.assetSymbol : msg.params?.symbol;
  if (typeof target !== 'string') return error(topic === 'indexPrice' ? 'Invalid assetSymbol' : 'Invalid symbol');
  if (topic !== 'indexPrice' && !listedNames(w).has(target)) return error('Invalid symbol');
  const key = `${topic}|${target}`;
  if (msg.method === 'unsubscribe') {
    c.subs.delete(key);
    host.send(
      c,
      JSON.stringify({ jsonrpc: '2.0', id, result: { responseCodeName: 'OK', responseCode: '200', message: 'Successfully unsubscribed' } }),
    );
    return;
  }
  c.subs.add(key);
  host.send(
    c,
    JSON.stringify({ jsonrpc: '2.0', id, result: { responseCodeName: 'OK', responseCode: '200', message: 'Successfully subscribed' } }),
  );
  if (topic === 'anonymousTrades') host.send(c, tradeSnapshotFrame(target, w.recent.get(target) ?? []));
}

function onMessage(host: VenueHost, w: BullishWire, c: Client, text: string): void {
  let msg: BullishCommand;
  try {
    msg = JSON.parse(text) as BullishCommand;
  } catch {
    host.send(c, JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } }));
    return;
  }
  const id = typeof msg.id === 'string' || typeof msg.id === 'number' ? msg.id : null;
  if (msg.method === 'keepalivePing') {
    host.send(c, JSON.stringify({ jsonrpc: '2.0', id, result: { message: 'Keep alive pong' } }));
    return;
  }
  if (msg.method !== 'subscribe' && msg.method !== 'unsubscribe') {
    host.send(c, JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32601, message: 'Method not found' } }));
    return;
  }
  onSubscription(host, w, c, msg, id);
}

/** `V1TAHeartbeat` pushes every bullishHeartbeatMs on every market-data socket. */
function startHeartbeats(host: VenueHost, timings: ProtocolTimings, c: Client): void {
  let seq = 0;
  c.timers.push(
    setInterval(() => {
      const now = String(Date.now());
      host.send(
        c,
        JSON.stringify({
          type: 'update',
          dataType: 'V1TAHeartbeat',
          data: { sequenceNumber: String(++seq), createdAtTimestamp: now, publishedAtTimestamp: now },
        }),
      );
    }, timings.bullishHeartbeatMs),
  );
}

function malformed(host: VenueHost, kind: MalformedKind): number {
  const good = JSON.stringify({
    type: 'update',
    dataType: 'V1TAAnonymousTradeUpdate',
    data: {
      symbol: 'BTC-USDC-PERP',
      createdAtTimestamp: String(Date.now()),
      publishedAtTimestamp: String(Date.now()),
      trades: [
        {
          symbol: 'BTC-USDC-PERP',
          tradeId: '100118000000000001',
          price: '66250.5',
          quantity: '0.0042',
          side: 'SELL',
          isTaker: true,
          createdAtTimestamp: String(Date.now()),
          publishedAtTimestamp: String(Date.now()),
        },
      ],
    },
  });
  const frame = malformedFrame(kind, good, '<html>503</html>', (g) => g.replace('"price":"66250.5"', '"price":"-"'));
  return host.sendAll(frame);
}

export async function startBullishServer(ctx: VenueServerContext, port = 0): Promise<VenueServer> {
  const { market, delivered, timings } = ctx;
  const wire: BullishWire = { market, recent: new Map(), printed: 0, listing: null };
  const host: VenueHost = new VenueHost('bullish', {
    wsPaths: isPath,
    rest: (path): RestReply | null => (path === '/trading-api/v1/markets' ? marketsRest(market) : null),
    onConnect: (c) => startHeartbeats(host, timings, c),
    onMessage: (c, text) => onMessage(host, wire, c, text),
  });
  const bound = await host.listen(port);
  const base = `ws://127.0.0.1:${bound}`;
  return venueServer(
    'bullish',
    host,
    {
      rest: `http://127.0.0.1:${bound}`,
      ws: {
        host: base,
        trades: `${base}/trading-api/v1/market-data/trades`,
        tick: `${base}/trading-api/v1/market-data/tick`,
        index: `${base}/trading-api/v1/index-data`,
      },
    },
    (events) => publish(host, wire, delivered, events),
    (kind) => malformed(host, kind),
  );
}
