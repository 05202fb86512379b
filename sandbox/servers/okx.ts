import type {
  Instrument,
  IndexPrice,
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
 * OKX v5 public WebSocket (/ws/v5/public) and REST /api/v5/public/instruments, /api/v5/public/open-interest.
 * Channels: option-trades (instFamily), opt-summary (instFamily), open-interest / mark-price / tickers / trades /
 * funding-rate (instId), index-tickers (BTC-USD), liquidation-orders (instType SWAP). Text 'ping' -> 'pong';
 * no subscription within okxNoSubscriptionMs -> disconnect. Sizes on the wire are contracts.
 */
const spec = VENUE_SPECS.okx;
const BASE_OF = (s: MarketSymbol): string => s.replace('USDT', '');

interface Arg {
  readonly channel?: unknown;
  readonly instId?: unknown;
  readonly instFamily?: unknown;
  readonly instType?: unknown;
  readonly uly?: unknown;
}

const family = (s: MarketSymbol): string => `${BASE_OF(s)}-USD`;
const optSeries = (s: MarketSymbol) => spec.options.find((o) => o.symbol === s);
const perpOf = (inst: string) => [...spec.perps, ...spec.spots].find((p) => p.instrument === inst);
const contracts = (coins: number, size: number): string => str(coins / size, 8);
/** Subscription key of an arg; the push echoes the arg as subscribed. */
const keyOf = (channel: string, sel: string): string => `${channel}|${sel}`;

/** Pushes `data` to the subscribers of `key`, echoing the arg they subscribed with; returns how many got it. */
type Push = (key: string, data: unknown[]) => number;

function pusher(host: VenueHost, argJson: ReadonlyMap<string, string>): Push {
  return (key, data) => host.broadcast(key, () => JSON.stringify({ arg: JSON.parse(argJson.get(key) ?? '{}') as unknown, data }));
}

// --- frame encoders ---

function optionTradeItem(market: SandboxMarket, fam: string, t: OptionTrade): Record<string, unknown> {
  const s = optSeries(t.symbol);
  const q = market.optionQuote('okx', t.instrument);
  return {
    fillVol: str(t.iv ?? 0, 10),
    fwdPx: str(t.underlyingPrice ?? 0, 8),
    idxPx: str(t.indexPrice ?? 0, 4),
    instFamily: fam,
    instId: t.instrument,
    markPx: str(q?.markVenue ?? t.price, 10),
    optType: t.optionType === 'call' ? 'C' : 'P',
    px: str(t.price, 8),
    side: t.side,
    sz: contracts(t.size, s?.contractSize ?? 1),
    tradeId: t.tradeId,
    ts: String(t.ts),
  };
}

function linearTradeItem(inst: string, t: LinearTrade): Record<string, unknown> {
  const l = perpOf(inst);
  return {
    instId: inst,
    tradeId: t.tradeId,
    px: str(t.price),
    sz: contracts(t.size, l?.contractSize ?? 1),
    side: t.side,
    ts: String(t.ts),
    count: '1',
  };
}

function liquidationItem(l: Liquidation): Record<string, unknown> {
  const p = perpOf(l.instrument);
  const uly = l.instrument.replace('-SWAP', '');
  return {
    details: [
      {
        bkLoss: '0',
        bkPx: str(l.price),
        ccy: '',
        posSide: l.side,
        side: l.side === 'long' ? 'sell' : 'buy',
        sz: contracts(l.size, p?.contractSize ?? 1),
        ts: String(l.ts),
      },
    ],
    instFamily: uly,
    instId: l.instrument,
    instType: 'SWAP',
    uly,
  };
}

function optSummaryItem(fam: string, t: OptionTicker): Record<string, unknown> {
  const f = t.underlyingPrice ?? 1;
  const markCoin = (t.markPrice ?? 0) / (t.indexPrice ?? 1);
  return {
    instType: 'OPTION',
    instId: t.instrument,
    uly: fam,
    delta: str((t.delta ?? 0) - markCoin, 10),
    gamma: str((t.gamma ?? 0) * f, 10),
    vega: str((t.vega ?? 0) / f, 10),
    theta: str((t.theta ?? 0) / f, 10),
    lever: str(markCoin > 0 ? 1 / markCoin : 0, 6),
    markVol: str(t.markIv ?? 0, 10),
    bidVol: str(t.bidIv ?? 0, 10),
    askVol: str(t.askIv ?? 0, 10),
    realVol: '',
    deltaBS: str(t.delta ?? 0, 10),
    gammaBS: str(t.gamma ?? 0, 12),
    thetaBS: str(t.theta ?? 0, 10),
    vegaBS: str(t.vega ?? 0, 10),
    fwdPx: str(f, 8),
    ts: String(t.ts),
  };
}

/** Option `tickers` item: book ±3 % around the mark (coin quote, contracts), last = mark, 24 h volume in coins. */
function optionTickersItem(t: OptionTicker, contractSize: number): Record<string, unknown> {
  const markCoin = (t.markPrice ?? 0) / (t.indexPrice ?? 1);
  const px = (x: number): string => (markCoin > 0 ? str(x, 8) : '');
  const size = contracts(25, contractSize);
  return {
    instType: 'OPTION',
    instId: t.instrument,
    last: px(markCoin),
    lastSz: '1',
    askPx: px(markCoin * 1.03),
    askSz: markCoin > 0 ? size : '',
    bidPx: px(markCoin * 0.97),
    bidSz: markCoin > 0 ? size : '',
    open24h: px(markCoin),
    high24h: px(markCoin * 1.1),
    low24h: px(markCoin * 0.9),
    volCcy24h: str((t.openInterest ?? 0) / 10, 4),
    vol24h: contracts((t.openInterest ?? 0) / 10, contractSize),
    sodUtc0: px(markCoin),
    sodUtc8: px(markCoin),
    ts: String(t.ts),
  };
}

function fundingItem(s: PerpStats): Record<string, unknown> {
  return {
    fundingRate: str(s.fundingRate ?? 0, 10),
    fundingTime: String(s.nextFundingTime ?? ''),
    instId: s.instrument,
    instType: 'SWAP',
    method: 'current_period',
    nextFundingRate: '',
    nextFundingTime: String((s.nextFundingTime ?? 0) + 8 * 3600 * 1000),
    ts: String(s.ts),
  };
}

function indexTickerItem(i: IndexPrice): Record<string, unknown> {
  return {
    instId: i.name,
    idxPx: str(i.value),
    open24h: str(i.value),
    high24h: str(i.value),
    low24h: str(i.value),
    sodUtc0: str(i.value),
    sodUtc8: str(i.value),
    ts: String(i.ts),
  };
}

// --- publishing ---

/** What the REST recent-trades endpoints serve: option trades per family, swap and spot trades per instId. */
interface OkxRecent {
  readonly options: RecentTrades;
  readonly linear: RecentTrades;
}

/** option-trades per family, trades per instrument, liquidation-orders; returns the events that reached a subscriber. */
function publishTrades(market: SandboxMarket, push: Push, recent: OkxRecent, events: readonly MarketEvent[]): MarketEvent[] {
  const sent: MarketEvent[] = [];
  const trades = events.filter((e) => e.type === 'option_trade');
  for (const [fam, list] of groupBy(trades, (e) => (e.type === 'option_trade' ? family(e.event.symbol) : null))) {
    const data = list.map((e) => (e.type === 'option_trade' ? optionTradeItem(market, fam, e.event) : null));
    list.forEach((e, i) => recent.options.add({ ts: e.event.ts, key: fam, wire: data[i] as Record<string, unknown> }));
    if (push(keyOf('option-trades', fam), data) > 0) sent.push(...list);
  }
  for (const [inst, list] of groupBy(events, (e) => (e.type === 'perp_trade' || e.type === 'spot_trade' ? e.event.instrument : null))) {
    const data = list.map((e) => (e.type === 'perp_trade' || e.type === 'spot_trade' ? linearTradeItem(inst, e.event) : null));
    list.forEach((e, i) => recent.linear.add({ ts: e.event.ts, key: inst, wire: data[i] as Record<string, unknown> }));
    if (push(keyOf('trades', inst), data) > 0) sent.push(...list);
  }
  const liqs = events.filter((e) => e.type === 'liquidation');
  if (liqs.length > 0) {
    const data = liqs.map((e) => (e.type === 'liquidation' ? liquidationItem(e.event) : null));
    if (push(keyOf('liquidation-orders', 'SWAP'), data) > 0) sent.push(...liqs);
  }
  return sent;
}

/** opt-summary per family, then each option's open-interest, mark-price and tickers (book). */
function publishOptionTickers(push: Push, events: readonly MarketEvent[]): void {
  const tickers = events.filter((e) => e.type === 'option_ticker');
  for (const [fam, list] of groupBy(tickers, (e) => (e.type === 'option_ticker' ? family(e.event.symbol) : null))) {
    push(
      keyOf('opt-summary', fam),
      list.map((e) => (e.type === 'option_ticker' ? optSummaryItem(fam, e.event) : null)),
    );
    for (const e of list) {
      if (e.type !== 'option_ticker') continue;
      const t = e.event;
      const s = optSeries(t.symbol);
      push(keyOf('open-interest', t.instrument), [
        {
          instId: t.instrument,
          instType: 'OPTION',
          oi: contracts(t.openInterest ?? 0, s?.contractSize ?? 1),
          oiCcy: str(t.openInterest ?? 0),
          ts: String(t.ts),
        },
      ]);
      push(keyOf('mark-price', t.instrument), [
        { instId: t.instrument, instType: 'OPTION', markPx: str((t.markPrice ?? 0) / (t.indexPrice ?? 1), 10), ts: String(t.ts) },
      ]);
      push(keyOf('tickers', t.instrument), [optionTickersItem(t, s?.contractSize ?? 1)]);
    }
  }
}

/** Swap open-interest, mark-price and funding-rate; index-tickers. */
function publishSwapStatsAndIndexes(push: Push, events: readonly MarketEvent[]): void {
  for (const e of events) {
    if (e.type === 'perp_stats') {
      const s = e.event;
      const p = perpOf(s.instrument);
      const ts = String(s.ts);
      push(keyOf('open-interest', s.instrument), [
        {
          instId: s.instrument,
          instType: 'SWAP',
          oi: contracts(s.openInterest ?? 0, p?.contractSize ?? 1),
          oiCcy: str(s.openInterest ?? 0),
          oiUsd: str(s.openInterestUsd ?? 0, 2),
          ts,
        },
      ]);
      push(keyOf('mark-price', s.instrument), [{ instId: s.instrument, instType: 'SWAP', markPx: str(s.markPrice ?? 0), ts }]);
      push(keyOf('funding-rate', s.instrument), [fundingItem(s)]);
    } else if (e.type === 'index') {
      push(keyOf('index-tickers', e.event.name), [indexTickerItem(e.event)]);
    }
  }
}

function publish(market: SandboxMarket, push: Push, recent: OkxRecent, delivered: TradeLedger, events: readonly MarketEvent[]): void {
  const sent = publishTrades(market, push, recent, events);
  publishOptionTickers(push, events);
  publishSwapStatsAndIndexes(push, events);
  delivered.recordEvents(sent);
}

// --- REST ---

/** /api/v5/public/option-trades?instFamily=: the family's latest 100 option trades, newest first. */
function optionTradesRest(recent: RecentTrades, q: URLSearchParams): RestReply {
  const fam = q.get('instFamily');
  if (!fam) return restError('50014', 'Parameter instFamily can not be empty.');
  if (!spec.options.some((o) => family(o.symbol) === fam)) return restError('51001', "Instrument ID doesn't exist.");
  return { status: 200, body: { code: '0', msg: '', data: recent.query({ key: fam, limit: 100, order: 'desc' }).rows } };
}

/** /api/v5/market/trades?instId=&limit= (≤ 500, default 100): the instrument's latest trades, newest first. */
function marketTradesRest(recent: RecentTrades, q: URLSearchParams): RestReply {
  const instId = q.get('instId');
  if (!instId) return restError('50014', 'Parameter instId can not be empty.');
  if (!spec.perps.some((p) => p.instrument === instId) && !spec.spots.some((s) => s.instrument === instId))
    return restError('51001', "Instrument ID doesn't exist.");
  const limit = Math.min(500, Math.max(1, Number(q.get('limit') ?? '100') || 100));
  return { status: 200, body: { code: '0', msg: '', data: recent.query({ key: instId, limit, order: 'desc' }).rows } };
}

const restError = (code: string, msg: string): RestReply => ({ status: 200, body: { code, msg, data: [] } });

function listingItem(i: Instrument): Record<string, unknown> {
  const base = BASE_OF(i.symbol);
  if (i.kind === 'option') {
    return {
      instType: 'OPTION',
      instId: i.instrument,
      uly: family(i.symbol),
      instFamily: family(i.symbol),
      baseCcy: '',
      quoteCcy: '',
      settleCcy: base,
      ctVal: '1',
      ctMult: String(i.contractSize),
      ctValCcy: base,
      optType: i.optionType === 'call' ? 'C' : 'P',
      stk: String(i.strike),
      listTime: String(i.ts),
      expTime: String(i.expiry),
      lever: '',
      tickSz: '0.0001',
      lotSz: '1',
      minSz: '1',
      ctType: '',
      state: 'live',
      ruleType: 'normal',
    };
  }
  if (i.kind === 'perp') {
    return {
      instType: 'SWAP',
      instId: i.instrument,
      uly: `${base}-USDT`,
      instFamily: `${base}-USDT`,
      baseCcy: '',
      quoteCcy: '',
      settleCcy: 'USDT',
      ctVal: String(i.contractSize),
      ctMult: '1',
      ctValCcy: base,
      optType: '',
      stk: '',
      listTime: String(i.ts),
      expTime: '',
      lever: '100',
      tickSz: '0.1',
      lotSz: '1',
      minSz: '1',
      ctType: 'linear',
      state: 'live',
      ruleType: 'normal',
    };
  }
  return {
    instType: 'SPOT',
    instId: i.instrument,
    uly: '',
    instFamily: '',
    baseCcy: base,
    quoteCcy: 'USDT',
    settleCcy: '',
    ctVal: '',
    ctMult: '',
    ctValCcy: '',
    listTime: String(i.ts),
    expTime: '',
    tickSz: '0.01',
    lotSz: '0.00000001',
    minSz: '0.00001',
    state: 'live',
    ruleType: 'normal',
  };
}

function instrumentsRest(market: SandboxMarket, q: URLSearchParams): RestReply {
  const instType = q.get('instType');
  const fam = q.get('instFamily') ?? q.get('uly');
  const instId = q.get('instId');
  if (instType !== 'OPTION' && instType !== 'SWAP' && instType !== 'SPOT') return restError('51000', 'Parameter instType error');
  if (instType === 'OPTION' && !fam) return restError('51000', 'Parameter instFamily error');
  const kind = instType === 'OPTION' ? 'option' : instType === 'SWAP' ? 'perp' : 'spot';
  const data = market
    .instruments('okx')
    .filter((i) => i.kind === kind && (!instId || i.instrument === instId))
    .filter((i) => !fam || (kind === 'option' ? family(i.symbol) === fam : i.instrument.startsWith(`${fam}-`) || i.instrument === fam))
    .map(listingItem);
  return { status: 200, body: { code: '0', msg: '', data } };
}

/** `/api/v5/public/open-interest?instType=OPTION&instFamily=BTC-USD` (or SWAP, optional instId): oi contracts, oiCcy coins. */
function openInterestRest(market: SandboxMarket, q: URLSearchParams): RestReply {
  const instType = q.get('instType');
  const fam = q.get('instFamily') ?? q.get('uly');
  const instId = q.get('instId');
  const ts = String(market.now);
  if (instType === 'OPTION') {
    if (!fam && !instId) return restError('51000', 'Parameter instFamily error');
    const data = market
      .chains('okx')
      .filter((c) => !fam || family(c.spec.symbol) === fam)
      .flatMap((c) => c.contracts.map((k) => ({ k, c })))
      .filter(({ k }) => !instId || k.instrument === instId)
      .map(({ k, c }) => {
        const oiUsd = k.oi * market.index(c.spec.symbol);
        return {
          instType: 'OPTION',
          instId: k.instrument,
          oi: contracts(k.oi, c.spec.contractSize),
          oiCcy: str(k.oi),
          oiUsd: str(oiUsd, 2),
          ts,
        };
      });
    return { status: 200, body: { code: '0', msg: '', data } };
  }
  if (instType === 'SWAP') {
    const data = market
      .perps('okx')
      .filter((p) => (!instId || p.spec.instrument === instId) && (!fam || p.spec.instrument.startsWith(`${fam}-`)))
      .map((p) => ({
        instType: 'SWAP',
        instId: p.spec.instrument,
        oi: contracts(p.oi, p.spec.contractSize),
        oiCcy: str(p.oi),
        oiUsd: str(p.oi * market.index(p.spec.symbol), 2),
        ts,
      }));
    return { status: 200, body: { code: '0', msg: '', data } };
  }
  return restError('51000', 'Parameter instType error');
}

// --- WS protocol ---

function selector(a: Arg): string | null {
  const s = (x: unknown): string | null => (typeof x === 'string' && x.length > 0 ? x : null);
  switch (a.channel) {
    case 'option-trades':
      return s(a.instFamily) ?? s(a.instId);
    case 'opt-summary':
      return s(a.instFamily) ?? s(a.uly);
    case 'liquidation-orders':
      return s(a.instType);
    case 'open-interest':
    case 'mark-price':
    case 'trades':
    case 'funding-rate':
    case 'index-tickers':
    case 'tickers':
      return s(a.instId);
    default:
      return null;
  }
}

/** Applies each arg of a subscribe / unsubscribe, remembering the arg its pushes echo; one ack or error per arg. */
function onSubscription(
  host: VenueHost,
  argJson: Map<string, string>,
  c: Client,
  op: 'subscribe' | 'unsubscribe',
  args: readonly Arg[],
  id: unknown,
): void {
  for (const a of args) {
    const sel = a && typeof a === 'object' ? selector(a) : null;
    if (!sel || typeof a.channel !== 'string') {
      host.send(
        c,
        JSON.stringify({
          event: 'error',
          code: '60018',
          msg: `Wrong URL or channel:${String(a?.channel)}, instId or instFamily doesn't exist.`,
          connId: c.id,
        }),
      );
      continue;
    }
    const key = keyOf(a.channel, sel);
    argJson.set(key, JSON.stringify(a));
    if (op === 'subscribe') c.subs.add(key);
    else c.subs.delete(key);
    host.send(c, JSON.stringify({ ...(id !== undefined ? { id } : {}), event: op, arg: a, connId: c.id }));
  }
}

function onMessage(host: VenueHost, argJson: Map<string, string>, c: Client, text: string): void {
  if (text === 'ping') {
    host.send(c, 'pong');
    return;
  }
  let msg: { op?: unknown; args?: unknown; id?: unknown };
  try {
    msg = JSON.parse(text) as typeof msg;
  } catch {
    host.send(c, JSON.stringify({ event: 'error', code: '60012', msg: `Invalid request: ${text.slice(0, 100)}`, connId: c.id }));
    return;
  }
  if (msg.op !== 'subscribe' && msg.op !== 'unsubscribe') {
    host.send(c, JSON.stringify({ event: 'error', code: '60012', msg: `Invalid request: ${text.slice(0, 100)}`, connId: c.id }));
    return;
  }
  onSubscription(host, argJson, c, msg.op, Array.isArray(msg.args) ? (msg.args as Arg[]) : [], msg.id);
}

/** No subscription within okxNoSubscriptionMs of connecting closes the connection. */
function closeIfNoSubscription(timings: ProtocolTimings, c: Client): void {
  c.timers.push(
    setTimeout(() => {
      if (c.subs.size === 0) c.ws.close(4004, 'No data received in 30s.');
    }, timings.okxNoSubscriptionMs),
  );
}

function malformed(host: VenueHost, kind: MalformedKind): number {
  const good = JSON.stringify({
    arg: { channel: 'option-trades', instType: 'OPTION', instFamily: 'BTC-USD' },
    data: [{ instId: 'BTC-USD-230224-18000-C', px: '0.045', side: 'sell', sz: '2', tradeId: '38', ts: String(Date.now()), optType: 'C' }],
  });
  const frame = malformedFrame(kind, good, 'Service Unavailable', (g) =>
    g.replace('"px":"0.045"', '"px":"zero"').replace('"sz":"2"', '"sz":null'),
  );
  return host.sendAll(frame);
}

export async function startOkxServer(ctx: VenueServerContext, port = 0): Promise<VenueServer> {
  const { market, delivered, timings } = ctx;
  const argJson = new Map<string, string>();
  const recent: OkxRecent = { options: new RecentTrades(), linear: new RecentTrades() };
  const host: VenueHost = new VenueHost('okx', {
    wsPaths: (p) => p === '/ws/v5/public',
    rest: (path, q) => {
      if (path === '/api/v5/public/instruments') return instrumentsRest(market, q);
      if (path === '/api/v5/public/option-trades') return optionTradesRest(recent.options, q);
      if (path === '/api/v5/market/trades') return marketTradesRest(recent.linear, q);
      return path === '/api/v5/public/open-interest' ? openInterestRest(market, q) : null;
    },
    onConnect: (c) => closeIfNoSubscription(timings, c),
    onMessage: (c, text) => onMessage(host, argJson, c, text),
  });
  const bound = await host.listen(port);
  const push = pusher(host, argJson);
  return venueServer(
    'okx',
    host,
    { rest: `http://127.0.0.1:${bound}`, ws: { public: `ws://127.0.0.1:${bound}/ws/v5/public` } },
    (events) => publish(market, push, recent, delivered, events),
    (kind) => malformed(host, kind),
  );
}
