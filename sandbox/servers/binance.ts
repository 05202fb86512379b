import type { Instrument, MarketEvent, MarketSymbol, OptionTicker } from '#schemas/events.ts';
import type { TradeLedger } from '../market/ledger.ts';
import type { SandboxMarket } from '../market/market.ts';
import { yymmdd } from '../market/calendar.ts';
import { VENUE_SPECS } from '../market/venues.ts';
import { VenueHost, groupBy, str, type Client, type RestReply, venueServer, malformedFrame } from './host.ts';
import type { MalformedKind, ProtocolTimings, VenueServer, VenueServerContext } from './types.ts';
import { BinanceTradesRest } from './binance-trades-rest.ts';

/**
 * Binance: futures/options streams on /public/stream and /market/stream (combined, {stream,data}) or
 * /public/ws/<stream>, /market/ws/<stream> (raw), spot on /stream and /ws/<stream>; `?streams=a/b` and
 * {"method":"SUBSCRIBE"}. Streams: <und>@optionTrade, <und>@optionMarkPrice, <und>@optionOpenInterest@<YYMMDD>,
 * <sym>@aggTrade, <sym>@markPrice[@1s], <sym>@forceOrder, !index@arr, spot <sym>@trade. REST: /eapi/v1/exchangeInfo,
 * /fapi/v1/exchangeInfo, /fapi/v1/openInterest, /api/v3/exchangeInfo, /fapi/v1/aggTrades, /api/v3/trades
 * (binance-trades-rest.ts). Server pings; no pong or max lifetime -> close.
 */
const spec = VENUE_SPECS.binance;
type Market = 'fut' | 'spot';
const lower = (s: string): string => s.toLowerCase();
const und = (s: MarketSymbol): string => lower(s);

function route(path: string): { market: Market; combined: boolean; stream: string | null } | null {
  let m = /^\/(public|market)\/(stream|ws)(?:\/(.+))?$/.exec(path);
  if (m) return { market: 'fut', combined: m[2] === 'stream', stream: m[3] ?? null };
  m = /^\/(stream|ws)(?:\/(.+))?$/.exec(path);
  if (m) return { market: 'spot', combined: m[1] === 'stream', stream: m[2] ?? null };
  return null;
}

/** Send `data` on stream `stream` of market `mk` to subscribers (combined wrapper or raw by connection). */
function emit(host: VenueHost, mk: Market, stream: string, data: unknown): number {
  const key = `${mk}|${stream}`;
  let n = 0;
  let combined: string | null = null;
  let raw: string | null = null;
  for (const c of host.clients) {
    if (!c.subs.has(key)) continue;
    const isCombined = c.state.get('combined') === true;
    const frame = isCombined ? (combined ??= JSON.stringify({ stream, data })) : (raw ??= JSON.stringify(data));
    if (host.send(c, frame)) n++;
  }
  return n;
}

// --- publishing ---

/** One event on its stream(s); returns how many clients got it. Index prices are collected into `indexItems`. */
function publishEvent(host: VenueHost, e: MarketEvent, indexItems: unknown[]): number {
  switch (e.type) {
    case 'option_trade': {
      const t = e.event;
      const data = {
        e: 'trade',
        E: t.ts,
        T: t.ts,
        s: t.instrument,
        t: Number(t.tradeId),
        p: t.price.toFixed(3),
        q: str(t.size, 2),
        X: 'MARKET',
        S: t.side === 'buy' ? 'BUY' : 'SELL',
        m: t.side === 'sell',
      };
      return emit(host, 'fut', `${und(t.symbol)}@optionTrade`, data) + emit(host, 'fut', `${lower(t.instrument)}@optionTrade`, data);
    }
    case 'perp_trade': {
      const t = e.event;
      // One fill per aggregate in the model, so the aggregate id `a` (what the connector keys on) is the ledger's trade id.
      const data = {
        e: 'aggTrade',
        E: t.ts,
        a: Number(t.tradeId),
        s: t.instrument,
        p: str(t.price),
        q: str(t.size),
        nq: str(t.size),
        f: Number(t.tradeId),
        l: Number(t.tradeId),
        T: t.ts,
        m: t.side === 'sell',
      };
      return emit(host, 'fut', `${lower(t.instrument)}@aggTrade`, data);
    }
    case 'spot_trade': {
      const t = e.event;
      const data = {
        e: 'trade',
        E: t.ts,
        s: t.instrument,
        t: Number(t.tradeId),
        p: str(t.price),
        q: str(t.size),
        T: t.ts,
        m: t.side === 'sell',
        M: true,
      };
      return emit(host, 'spot', `${lower(t.instrument)}@trade`, data);
    }
    case 'liquidation': {
      const l = e.event;
      const data = {
        e: 'forceOrder',
        E: l.ts,
        o: {
          s: l.instrument,
          S: l.side === 'long' ? 'SELL' : 'BUY',
          o: 'LIMIT',
          f: 'IOC',
          q: str(l.size),
          p: str(l.price),
          ap: str(l.price),
          X: 'FILLED',
          l: str(l.size),
          z: str(l.size),
          T: l.ts,
        },
      };
      return emit(host, 'fut', `${lower(l.instrument)}@forceOrder`, data) + emit(host, 'fut', '!forceOrder@arr', data);
    }
    case 'index': {
      const i = e.event;
      indexItems.push({ e: 'index', E: i.ts, s: i.name, p: str(i.value, 8) });
      return 0;
    }
    case 'perp_stats': {
      const s = e.event;
      const data = {
        e: 'markPriceUpdate',
        E: s.ts,
        s: s.instrument,
        p: str(s.markPrice ?? 0),
        P: str(s.markPrice ?? 0),
        i: str(s.indexPrice ?? 0),
        r: str(s.fundingRate ?? 0, 8),
        T: s.nextFundingTime ?? 0,
      };
      emit(host, 'fut', `${lower(s.instrument)}@markPrice@1s`, data);
      emit(host, 'fut', `${lower(s.instrument)}@markPrice`, data);
      return 0;
    }
    default:
      return 0;
  }
}

function optionMarkItem(t: OptionTicker): Record<string, unknown> {
  const m = t.markPrice ?? 0;
  return {
    s: t.instrument,
    mp: str(m, 4),
    E: t.ts,
    e: 'markPrice',
    i: str(t.indexPrice ?? 0, 8),
    P: '0.0000',
    bo: str(m * 0.97, 4),
    ao: str(m * 1.03, 4),
    bq: '5.00',
    aq: '5.00',
    b: str(t.bidIv ?? -1, 4),
    a: str(t.askIv ?? -1, 4),
    hl: str(m * 2, 4),
    ll: str(m * 0.5, 4),
    vo: str(t.markIv ?? 0, 4),
    rf: '0.0',
    d: str(t.delta ?? 0, 8),
    t: str(t.theta ?? 0, 8),
    g: str(t.gamma ?? 0, 10),
    v: str(t.vega ?? 0, 8),
  };
}

/** <und>@optionMarkPrice (one array per underlying) and <und>@optionOpenInterest@<YYMMDD> (one per expiry). */
function publishOptionTickers(host: VenueHost, events: readonly MarketEvent[]): void {
  const tickers = events.filter((e) => e.type === 'option_ticker');
  for (const [u, list] of groupBy(tickers, (e) => (e.type === 'option_ticker' ? und(e.event.symbol) : null))) {
    emit(
      host,
      'fut',
      `${u}@optionMarkPrice`,
      list.map((e) => (e.type === 'option_ticker' ? optionMarkItem(e.event) : null)),
    );
    for (const [exp, byExp] of groupBy(list, (e) => (e.type === 'option_ticker' ? yymmdd(e.event.expiry) : null))) {
      emit(
        host,
        'fut',
        `${u}@optionOpenInterest@${exp}`,
        byExp.map((e) => {
          if (e.type !== 'option_ticker') return null;
          const t = e.event;
          return {
            e: 'openInterest',
            E: t.ts,
            s: t.instrument,
            o: str(t.openInterest ?? 0, 2),
            h: str((t.openInterest ?? 0) * (t.indexPrice ?? 0), 2),
          };
        }),
      );
    }
  }
}

function publish(host: VenueHost, delivered: TradeLedger, events: readonly MarketEvent[]): void {
  const sent: MarketEvent[] = [];
  const indexItems: unknown[] = [];
  for (const e of events) if (publishEvent(host, e, indexItems) > 0) sent.push(e);
  // `!index@arr`: one array of every underlying's index per update.
  if (indexItems.length > 0) emit(host, 'fut', '!index@arr', indexItems);
  publishOptionTickers(host, events);
  delivered.recordEvents(sent);
}

// --- REST ---

function optionSymbol(i: Instrument): Record<string, unknown> {
  const s = spec.options.find((o) => o.symbol === i.symbol);
  return {
    expiryDate: i.expiry,
    symbol: i.instrument,
    side: i.optionType === 'call' ? 'CALL' : 'PUT',
    strikePrice: String(i.strike),
    underlying: i.symbol,
    unit: i.contractSize,
    makerFeeRate: '0.0002',
    takerFeeRate: '0.0002',
    minQty: String(s?.lot ?? 0.01),
    maxQty: '10000',
    initialMargin: '0.15',
    maintenanceMargin: '0.075',
    minInitialMargin: '0.1',
    minMaintenanceMargin: '0.05',
    priceScale: 1,
    quantityScale: 2,
    quoteAsset: 'USDT',
    status: 'TRADING',
    filters: [
      { filterType: 'PRICE_FILTER', minPrice: String(s?.priceTick ?? 5), maxPrice: '1000000', tickSize: String(s?.priceTick ?? 5) },
      { filterType: 'LOT_SIZE', minQty: String(s?.lot ?? 0.01), maxQty: '10000', stepSize: String(s?.lot ?? 0.01) },
    ],
  };
}

function optionsExchangeInfo(ins: readonly Instrument[], now: number): RestReply {
  const opts = ins.filter((i) => i.kind === 'option');
  const unds = [...new Set(opts.map((i) => i.symbol))];
  return {
    status: 200,
    body: {
      timezone: 'UTC',
      serverTime: now,
      rateLimits: [],
      optionContracts: unds.map((u) => ({ baseAsset: u.replace('USDT', ''), quoteAsset: 'USDT', underlying: u, settleAsset: 'USDT' })),
      optionAssets: [{ name: 'USDT' }],
      optionSymbols: opts.map(optionSymbol),
    },
  };
}

function linearExchangeInfo(ins: readonly Instrument[], kind: 'perp' | 'spot', now: number): RestReply {
  return {
    status: 200,
    body: {
      timezone: 'UTC',
      serverTime: now,
      rateLimits: [],
      exchangeFilters: [],
      symbols: ins
        .filter((i) => i.kind === kind)
        .map((i) => {
          const l = (kind === 'perp' ? spec.perps : spec.spots).find((x) => x.instrument === i.instrument);
          return {
            symbol: i.instrument,
            pair: i.instrument,
            status: 'TRADING',
            baseAsset: i.symbol.replace('USDT', ''),
            quoteAsset: 'USDT',
            ...(kind === 'perp'
              ? {
                  contractType: 'PERPETUAL',
                  deliveryDate: 4133404800000,
                  onboardDate: i.ts,
                  marginAsset: 'USDT',
                  pricePrecision: 2,
                  quantityPrecision: 3,
                  underlyingType: 'COIN',
                }
              : {}),
            filters: [{ filterType: 'LOT_SIZE', minQty: String(l?.lot ?? 0.001), maxQty: '1000', stepSize: String(l?.lot ?? 0.001) }],
          };
        }),
    },
  };
}

function rest(market: SandboxMarket, path: string, q: URLSearchParams): RestReply | null {
  const now = Date.now();
  const ins = market.instruments('binance');
  if (path === '/eapi/v1/exchangeInfo') return optionsExchangeInfo(ins, now);
  if (path === '/fapi/v1/exchangeInfo' || path === '/api/v3/exchangeInfo')
    return linearExchangeInfo(ins, path.startsWith('/fapi') ? 'perp' : 'spot', now);
  if (path === '/fapi/v1/openInterest') {
    const sym = q.get('symbol');
    const perp = market.perps('binance').find((p) => p.spec.instrument === sym);
    if (!perp) return { status: 400, body: { code: -1121, msg: 'Invalid symbol.' } };
    return { status: 200, body: { symbol: sym, openInterest: str(perp.oi, 3), time: now } };
  }
  return null;
}

// --- WS protocol ---

function validStream(mk: Market, s: string): boolean {
  if (mk === 'spot') return /^[a-z0-9]+@trade$/.test(s);
  return /^([a-z0-9]+@(optionTrade|optionMarkPrice|aggTrade|markPrice(@1s)?|forceOrder)|[a-z0-9]+@optionOpenInterest@\d{6}|[a-z]+-\d{6}-[\d.]+-[cp]@optionTrade|!forceOrder@arr|!index@arr)$/.test(
    s,
  );
}

/** Server pings; a client that does not pong within the deadline is dropped. Max connection lifetime. */
function startPingsAndLifetime(host: VenueHost, timings: ProtocolTimings, c: Client): void {
  let lastPong = Date.now();
  c.ws.on('pong', () => {
    lastPong = Date.now();
  });
  c.timers.push(
    setInterval(() => {
      if (Date.now() - lastPong > timings.binancePongTimeoutMs) {
        c.ws.terminate();
        return;
      }
      if (!host.silent) c.ws.ping();
    }, timings.binancePingIntervalMs),
  );
  c.timers.push(setTimeout(() => c.ws.close(1000, 'max connection lifetime'), timings.binanceMaxLifetimeMs));
}

/** The connection's market and framing from its path; streams named in the path or `?streams=` are subscribed. */
function onConnect(host: VenueHost, timings: ProtocolTimings, c: Client): void {
  const r = route(c.path);
  if (!r) return;
  c.state.set('combined', r.combined);
  c.state.set('market', r.market);
  const initial = r.stream ? [r.stream] : (c.query.get('streams') ?? '').split('/').filter((s) => s.length > 0);
  for (const s of initial) if (validStream(r.market, s)) c.subs.add(`${r.market}|${s}`);
  startPingsAndLifetime(host, timings, c);
}

/** SUBSCRIBE / UNSUBSCRIBE: all streams valid or the whole request is refused. */
function onSubscription(
  host: VenueHost,
  c: Client,
  mk: Market,
  method: 'SUBSCRIBE' | 'UNSUBSCRIBE',
  params: readonly string[],
  id: number | string | null,
): void {
  const bad = params.find((p) => !validStream(mk, p));
  if (bad) {
    host.send(c, JSON.stringify({ error: { code: 2, msg: `Invalid request: unknown stream ${bad}` }, id }));
    return;
  }
  for (const p of params) {
    if (method === 'SUBSCRIBE') c.subs.add(`${mk}|${p}`);
    else c.subs.delete(`${mk}|${p}`);
  }
  host.send(c, JSON.stringify({ result: null, id }));
}

function onMessage(host: VenueHost, c: Client, text: string): void {
  const mk = (c.state.get('market') as Market | undefined) ?? 'fut';
  let msg: { method?: unknown; params?: unknown; id?: unknown };
  try {
    msg = JSON.parse(text) as typeof msg;
  } catch {
    host.send(c, JSON.stringify({ error: { code: 3, msg: 'Invalid JSON' }, id: null }));
    return;
  }
  const id = typeof msg.id === 'number' || typeof msg.id === 'string' ? msg.id : null;
  const params = Array.isArray(msg.params) ? msg.params.filter((p): p is string => typeof p === 'string') : [];
  if (msg.method === 'SUBSCRIBE' || msg.method === 'UNSUBSCRIBE') {
    onSubscription(host, c, mk, msg.method, params, id);
  } else if (msg.method === 'LIST_SUBSCRIPTIONS') {
    host.send(c, JSON.stringify({ result: [...c.subs].map((s) => s.slice(s.indexOf('|') + 1)), id }));
  } else {
    host.send(c, JSON.stringify({ error: { code: 1, msg: 'Unknown method' }, id }));
  }
}

function malformed(host: VenueHost, kind: MalformedKind): number {
  const good = JSON.stringify({
    stream: 'btcusdt@optionTrade',
    data: {
      e: 'trade',
      E: Date.now(),
      T: Date.now(),
      s: 'BTC-251219-89000-C',
      t: 1,
      p: '1420.000',
      q: '1.54',
      X: 'MARKET',
      S: 'BUY',
      m: false,
    },
  });
  const frame = malformedFrame(kind, good, '<html><body>429 Too Many Requests</body></html>', (g) =>
    g.replace('"p":"1420.000"', '"p":"x1420"').replace('"q":"1.54"', '"q":[]'),
  );
  return host.sendAll(frame);
}

export async function startBinanceServer(ctx: VenueServerContext, port = 0): Promise<VenueServer> {
  const { market, delivered, timings } = ctx;
  const trades = new BinanceTradesRest();
  const host: VenueHost = new VenueHost('binance', {
    wsPaths: (p) => route(p) !== null,
    rest: (path, q) => trades.reply(path, q) ?? rest(market, path, q),
    onConnect: (c) => onConnect(host, timings, c),
    onMessage: (c, text) => onMessage(host, c, text),
  });
  const bound = await host.listen(port);
  const base = `ws://127.0.0.1:${bound}`;
  return venueServer(
    'binance',
    host,
    { rest: `http://127.0.0.1:${bound}`, ws: { public: `${base}/public/stream`, market: `${base}/market/stream`, spot: `${base}/stream` } },
    (events) => {
      trades.record(events);
      publish(host, delivered, events);
    },
    (kind) => malformed(host, kind),
  );
}
