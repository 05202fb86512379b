import type { Instrument, LinearTrade, MarketEvent, OptionTicker, OptionTrade, PerpStats } from '../../../schemas/events.ts';
import { VENUE_SPECS } from '../market/venues.ts';
import { VenueHost, str, type Client, type RestReply, venueServer, malformedFrame } from './host.ts';
import type { MalformedKind, VenueServer, VenueServerContext } from './types.ts';

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
    symbol: i.instrument, baseSymbol: base, quoteSymbol: 'USDC', underlyingBaseSymbol: base, underlyingQuoteSymbol: 'USDC', settlementAssetSymbol: 'USDC',
    contractMultiplier: String(i.contractSize), marketEnabled: i.active,
  };
  if (i.kind === 'perp') {
    const p = spec.perps.find((x) => x.instrument === i.instrument);
    return { ...common, marketType: 'PERPETUAL', tickSize: '0.1', minQuantityLimit: String(p?.lot ?? 0.0001) };
  }
  const s = spec.options.find((o) => o.symbol === i.symbol);
  return {
    ...common, marketType: 'OPTION', expiryDatetime: new Date(i.expiry ?? 0).toISOString(), optionStrikePrice: String(i.strike),
    optionType: i.optionType === 'call' ? 'CALL' : 'PUT', tickSize: String(s?.priceTick ?? 5), minQuantityLimit: String(s?.lot ?? 0.01),
  };
}

export async function startBullishServer(ctx: VenueServerContext, port = 0): Promise<VenueServer> {
  const { market, delivered, timings } = ctx;
  const recent = new Map<string, Record<string, unknown>[]>();
  let n = 0;

  function tradeItem(t: OptionTrade | LinearTrade, perp: boolean): Record<string, unknown> {
    // Half the prints are reported from the maker's side (isTaker false, side = the maker's side).
    const asTaker = n++ % 2 === 0;
    const side = asTaker === (t.side === 'buy') ? 'BUY' : 'SELL';
    const ms = String(t.ts);
    const stamp = perp ? `${ms}000000` : ms;
    return {
      symbol: t.instrument, tradeId: t.tradeId, price: str(t.price, 4), quantity: str(t.size, 8), side, isTaker: asTaker,
      createdAtTimestamp: stamp, publishedAtTimestamp: stamp, createdAtDatetime: new Date(t.ts).toISOString(),
    };
  }

  function tick(e: OptionTicker | PerpStats, option: boolean, first: boolean): string {
    const m = e.markPrice ?? 0;
    const common = {
      symbol: e.instrument, type: 'ticker', createdAtTimestamp: String(e.ts), publishedAtTimestamp: String(e.ts + 5), createdAtDatetime: new Date(e.ts).toISOString(),
      markPrice: str(m, 4), bestBid: str(m * (option ? 0.97 : 0.9999), 4), bestAsk: str(m * (option ? 1.03 : 1.0001), 4), bidVolume: '1', askVolume: '1',
      last: null, baseVolume: '0', quoteVolume: '0',
    };
    const data = 'markIv' in e
      ? { ...common, openInterest: str(e.openInterest ?? 0, 8), openInterestUSD: str((e.openInterest ?? 0) * (e.indexPrice ?? 0), 4), delta: str(e.delta ?? 0, 8), gamma: str(e.gamma ?? 0, 10), theta: str(e.theta ?? 0, 4), vega: str(e.vega ?? 0, 4), impliedVolatility: str(e.markIv ?? 0, 4) }
      : { ...common, fundingRate: str(e.fundingRate ?? 0, 8), openInterest: str(e.openInterest ?? 0, 8), openInterestUSD: str(e.openInterestUsd ?? 0, 4) };
    return JSON.stringify({ type: first ? 'snapshot' : 'update', dataType: 'V1TATickerResponse', data });
  }

  function publish(events: readonly MarketEvent[]): void {
    const sent: MarketEvent[] = [];
    const bySymbol = new Map<string, MarketEvent[]>();
    for (const e of events) {
      if (e.type !== 'option_trade' && e.type !== 'perp_trade') continue;
      let list = bySymbol.get(e.event.instrument);
      if (!list) bySymbol.set(e.event.instrument, (list = []));
      list.push(e);
    }
    for (const [symbol, list] of bySymbol) {
      const items = list.flatMap((e) => (e.type === 'option_trade' || e.type === 'perp_trade' ? [tradeItem(e.event, e.type === 'perp_trade')] : []));
      const last = items.at(-1);
      const frame = JSON.stringify({ type: 'update', dataType: 'V1TAAnonymousTradeUpdate', data: { symbol, createdAtTimestamp: last?.['createdAtTimestamp'], publishedAtTimestamp: last?.['publishedAtTimestamp'], trades: items } });
      if (host.broadcast(`anonymousTrades|${symbol}`, frame) > 0) sent.push(...list);
      recent.set(symbol, [...(recent.get(symbol) ?? []), ...items].slice(-RECENT));
    }
    for (const e of events) {
      if (e.type === 'option_ticker' || e.type === 'perp_stats') {
        const key = `tick|${e.event.instrument}`;
        for (const c of host.clients) {
          if (!c.subs.has(key)) continue;
          const first = c.state.get(key) !== true;
          if (host.send(c, tick(e.event, e.type === 'option_ticker', first))) c.state.set(key, true);
        }
      } else if (e.type === 'index') {
        const ev = e.event;
        host.broadcast(`indexPrice|${ev.name}`, () => JSON.stringify({
          type: 'update', dataType: 'V1TAIndexPrice',
          data: { price: str(ev.value, 4), assetSymbol: ev.name, updatedAtDatetime: new Date(ev.ts).toISOString(), updatedAtTimestamp: String(ev.ts) },
        }));
      }
    }
    delivered.recordEvents(sent);
  }

  // --- WS protocol ---
  let listing: { at: number; names: Set<string> } | null = null;
  const listed = (): Set<string> => {
    if (listing?.at !== market.now) listing = { at: market.now, names: new Set(market.instruments('bullish').map((i) => i.instrument)) };
    return listing.names;
  };

  function onMessage(c: Client, text: string): void {
    let msg: { id?: unknown; method?: unknown; params?: { topic?: unknown; symbol?: unknown; assetSymbol?: unknown } };
    try {
      msg = JSON.parse(text) as typeof msg;
    } catch {
      host.send(c, JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } }));
      return;
    }
    const id = typeof msg.id === 'string' || typeof msg.id === 'number' ? msg.id : null;
    const error = (message: string): void => void host.send(c, JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32602, message } }));
    if (msg.method === 'keepalivePing') {
      host.send(c, JSON.stringify({ jsonrpc: '2.0', id, result: { message: 'Keep alive pong' } }));
      return;
    }
    if (msg.method !== 'subscribe' && msg.method !== 'unsubscribe') {
      host.send(c, JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32601, message: 'Method not found' } }));
      return;
    }
    const topic = msg.params?.topic;
    if (!isPath(c.path) || topic !== PATHS[c.path]) return error(`Invalid topic for ${c.path}`);
    const target = topic === 'indexPrice' ? msg.params?.assetSymbol : msg.params?.symbol;
    if (typeof target !== 'string') return error(topic === 'indexPrice' ? 'Invalid assetSymbol' : 'Invalid symbol');
    if (topic !== 'indexPrice' && !listed().has(target)) return error('Invalid symbol');
    const key = `${topic}|${target}`;
    if (msg.method === 'unsubscribe') {
      c.subs.delete(key);
      host.send(c, JSON.stringify({ jsonrpc: '2.0', id, result: { responseCodeName: 'OK', responseCode: '200', message: 'Successfully unsubscribed' } }));
      return;
    }
    c.subs.add(key);
    host.send(c, JSON.stringify({ jsonrpc: '2.0', id, result: { responseCodeName: 'OK', responseCode: '200', message: 'Successfully subscribed' } }));
    if (topic === 'anonymousTrades') {
      const items = recent.get(target) ?? [];
      const last = items.at(-1);
      host.send(c, JSON.stringify({ type: 'snapshot', dataType: 'V1TAAnonymousTradeUpdate', data: { symbol: target, createdAtTimestamp: last?.['createdAtTimestamp'] ?? String(Date.now()), publishedAtTimestamp: last?.['publishedAtTimestamp'] ?? String(Date.now()), trades: items } }));
    }
  }

  const host = new VenueHost('bullish', {
    wsPaths: isPath,
    rest: (path): RestReply | null =>
      path === '/trading-api/v1/markets'
        ? {
            status: 200,
            body: [
              ...market.instruments('bullish').filter((i) => i.kind === 'perp' || i.kind === 'option').map(listingItem),
              // A spot pair, as the venue lists them (the connector does not track spot).
              { symbol: 'BTCUSDC', marketType: 'SPOT', baseSymbol: 'BTC', quoteSymbol: 'USDC', marketEnabled: true },
            ],
          }
        : null,
    onConnect: (c) => {
      let seq = 0;
      c.timers.push(setInterval(() => {
        const now = String(Date.now());
        host.send(c, JSON.stringify({ type: 'update', dataType: 'V1TAHeartbeat', data: { sequenceNumber: String(++seq), createdAtTimestamp: now, publishedAtTimestamp: now } }));
      }, timings.bullishHeartbeatMs));
    },
    onMessage,
  });
  const bound = await host.listen(port);
  const base = `ws://127.0.0.1:${bound}`;

  function malformed(kind: MalformedKind): number {
    const good = JSON.stringify({ type: 'update', dataType: 'V1TAAnonymousTradeUpdate', data: { symbol: 'BTC-USDC-PERP', createdAtTimestamp: String(Date.now()), publishedAtTimestamp: String(Date.now()), trades: [{ symbol: 'BTC-USDC-PERP', tradeId: '100118000000000001', price: '66250.5', quantity: '0.0042', side: 'SELL', isTaker: true, createdAtTimestamp: String(Date.now()), publishedAtTimestamp: String(Date.now()) }] } });
    const frame = malformedFrame(kind, good, '<html>503</html>', (g) => g.replace('"price":"66250.5"', '"price":"-"'));
    return host.sendAll(frame);
  }

  return venueServer('bullish', host, {
      rest: `http://127.0.0.1:${bound}`,
      ws: { host: base, trades: `${base}/trading-api/v1/market-data/trades`, tick: `${base}/trading-api/v1/market-data/tick`, index: `${base}/trading-api/v1/index-data` },
    }, publish, malformed);
}
