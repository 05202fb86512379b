import type { Instrument, MarketEvent, OptionTicker, PerpStats } from '#schemas/events.ts';
import type { TradeLedger } from '../market/ledger.ts';
import type { SandboxMarket } from '../market/market.ts';
import type { VenueSpec } from '../market/venues.ts';
import { hash32 } from '#ingest/connector/parse-helpers.ts';
import { ddmmyy } from '../market/calendar.ts';
import { VENUE_SPECS } from '../market/venues.ts';
import { VenueHost, groupBy, str, type Client, type RestReply, malformedFrame, venueServer } from './host.ts';
import type { MalformedKind, ProtocolTimings, VenueServer, VenueServerContext } from './types.ts';

/**
 * Delta Exchange (India and global: one server per host) public market-data socket with the compact channels of
 * 2026-04 (`wss://public-socket...`, root path) and REST GET /v2/products (cursor pages: `page_size`, `after`).
 * Subscribe `{type:"subscribe",payload:{channels:[{name,symbols}]}}` -> `{type:"subscriptions"}`; channels `trades`
 * (symbols: products, `call_options` / `put_options` / `perpetual_futures`, `all`), `ticker` (products or option
 * chains `BTC-DDMMYY`), `funding_rate`, `mark_price` (`MARK:<sym>`); legacy channels are refused.
 * `enable_heartbeat` -> `{type:"heartbeat"}` every 30 s; `ping` -> `pong`; no subscription within 60 s -> close.
 * Sizes on the wire are contracts (× contract_value = coins); times µs.
 *
 * Ledger ids: no trade id on the wire; the delivered ledger holds `${t}:${hash32(sy|t|p|s|r)}` as ingest/venues/delta
 * builds it (`t` µs, sub-ms digits keep equal trades apart).
 */
type DeltaVenue = 'delta_india' | 'delta';
const CHANNELS = new Set(['trades', 'ticker', 'funding_rate', 'mark_price']);

function contractType(i: Instrument): string {
  return i.kind === 'perp' ? 'perpetual_futures' : i.optionType === 'call' ? 'call_options' : 'put_options';
}

const baseOf = (symbol: string): string => symbol.replace('USDT', '');

/** Per-host wire state: the venue's specs, product ids handed out so far, the last trade time printed (µs). */
interface DeltaWire {
  readonly venue: DeltaVenue;
  readonly spec: VenueSpec;
  readonly productIds: Map<string, number>;
  lastUs: number;
}

function productId(w: DeltaWire, name: string): number {
  let id = w.productIds.get(name);
  if (id === undefined) w.productIds.set(name, (id = 80_000 + w.productIds.size));
  return id;
}

function contractSize(w: DeltaWire, i: { readonly instrument: string; readonly symbol: string }): number {
  return (
    w.spec.perps.find((p) => p.instrument === i.instrument)?.contractSize ??
    w.spec.options.find((o) => o.symbol === i.symbol)?.contractSize ??
    1
  );
}

/** Send `frame` to every client subscribed to any of `keys` (`channel|symbol`). */
function sendTo(host: VenueHost, keys: readonly string[], frame: () => string): number {
  let n = 0;
  let text: string | null = null;
  for (const c of host.clients) {
    if (!keys.some((k) => c.subs.has(k))) continue;
    text ??= frame();
    if (host.send(c, text)) n++;
  }
  return n;
}

// --- frame encoders ---

function optionTickerRow(w: DeltaWire, t: OptionTicker): Record<string, unknown> {
  const m = t.markPrice ?? 0;
  const cs = contractSize(w, t);
  return {
    s: t.instrument,
    i: productId(w, t.instrument),
    m: str(m, 2),
    m24hc: '0',
    g: [str(t.delta ?? 0, 6), str(t.gamma ?? 0, 10), '0', str(t.theta ?? 0, 6), str(t.vega ?? 0, 6)],
    q: [str(m * 1.03, 1), '100', str(m * 0.97, 1), '100', null],
    qiv: [str(t.askIv ?? 0, 4), str(t.bidIv ?? 0, 4), str(t.markIv ?? 0, 4)],
    oi: [str((t.openInterest ?? 0) / cs, 0), str((t.openInterest ?? 0) * (t.indexPrice ?? 0), 2)],
    ohlc: [m, m, m, m],
    pb: [str(m * 0.5, 1), str(m * 2 + 10, 1)],
    to: [0, 0],
  };
}

function perpTickerRow(w: DeltaWire, s: PerpStats): Record<string, unknown> {
  const m = s.markPrice ?? 0;
  return {
    s: s.instrument,
    i: productId(w, s.instrument),
    m: str(m, 2),
    m24hc: '0',
    g: [null, null, null, null, null],
    q: [str(m, 1), '1000', str(m, 1), '1000', null],
    qiv: [null, null, '-0.38'],
    oi: [str((s.openInterest ?? 0) / contractSize(w, s), 0), str(s.openInterestUsd ?? 0, 2)],
    ohlc: [m, m, m, m],
    pb: [str(m * 0.95, 1), str(m * 1.05, 1)],
    to: [0, 0],
  };
}

// --- publishing ---

/** One `trades` frame per trade (product, category and `all` subscribers); delivered trades enter the ledger. */
function publishTrades(host: VenueHost, w: DeltaWire, delivered: TradeLedger, events: readonly MarketEvent[]): void {
  for (const e of events) {
    if (e.type !== 'option_trade' && e.type !== 'perp_trade') continue;
    const t = e.event;
    const sy = t.instrument;
    const tUs = Math.max(t.ts * 1000, w.lastUs + 1);
    w.lastUs = tUs;
    const p = str(t.price, 2);
    const s = Number((t.size / contractSize(w, t)).toFixed(6));
    const r = t.side === 'buy' ? 't' : 'm';
    const category = e.type === 'perp_trade' ? 'perpetual_futures' : t.instrument.startsWith('C-') ? 'call_options' : 'put_options';
    const n = sendTo(host, [`trades|${sy}`, `trades|${category}`, 'trades|all'], () =>
      JSON.stringify({ type: 'trades', sy, p, s, r, t: tUs, ts: tUs + 400 }),
    );
    if (n > 0)
      delivered.record(w.venue, {
        kind: e.type,
        symbol: t.symbol,
        instrument: sy,
        tradeId: `${tUs}:${hash32(`${sy}|${tUs}|${Number(p)}|${s}|${r}`)}`,
        ts: t.ts,
      });
  }
}

/** Option tickers: one frame per chain (`BTC-DDMMYY`) and one per product. */
function publishOptionTickers(host: VenueHost, w: DeltaWire, market: SandboxMarket, events: readonly MarketEvent[]): void {
  const tickers = events.filter((e): e is Extract<MarketEvent, { type: 'option_ticker' }> => e.type === 'option_ticker');
  for (const [chain, list] of groupBy(tickers, (e) => `${baseOf(e.event.symbol)}-${ddmmyy(e.event.expiry)}`)) {
    const first = list[0];
    if (!first) continue;
    const sp = str(first.event.indexPrice ?? market.index(first.event.symbol), 2);
    sendTo(host, [`ticker|${chain}`], () =>
      JSON.stringify({ type: 'ticker', sy: chain, sp, ts: first.event.ts * 1000, d: list.map((e) => optionTickerRow(w, e.event)) }),
    );
    for (const e of list)
      sendTo(host, [`ticker|${e.event.instrument}`], () =>
        JSON.stringify({ type: 'ticker', sy: e.event.instrument, sp, ts: e.event.ts * 1000, d: [optionTickerRow(w, e.event)] }),
      );
  }
}

/** Perp ticker, funding_rate and mark_price (`MARK:<sym>`). */
function publishPerpStats(host: VenueHost, w: DeltaWire, events: readonly MarketEvent[]): void {
  for (const e of events) {
    if (e.type !== 'perp_stats') continue;
    const st = e.event;
    const sy = st.instrument;
    const ts = st.ts * 1000;
    sendTo(host, [`ticker|${sy}`], () =>
      JSON.stringify({ type: 'ticker', sy, sp: str(st.indexPrice ?? 0, 2), ts, d: [perpTickerRow(w, st)] }),
    );
    sendTo(host, [`funding_rate|${sy}`], () =>
      JSON.stringify({
        type: 'funding_rate',
        sy,
        fr: str((st.fundingRate ?? 0) * 100, 6),
        nfr: (st.nextFundingTime ?? 0) * 1000,
        fi: 480,
        ts,
      }),
    );
    sendTo(host, [`mark_price|MARK:${sy}`], () =>
      JSON.stringify({ type: 'mark_price', sy: `MARK:${sy}`, p: str(st.markPrice ?? 0, 2), ts }),
    );
  }
}

// --- REST ---

function productItem(w: DeltaWire, i: Instrument): Record<string, unknown> {
  const base = baseOf(i.symbol);
  const ct = contractType(i);
  return {
    id: productId(w, i.instrument),
    symbol: i.instrument,
    description: `${base} ${ct === 'perpetual_futures' ? 'Perpetual futures' : ct === 'call_options' ? 'Call option' : 'Put option'}`,
    contract_type: ct,
    state: 'live',
    contract_value: String(contractSize(w, i)),
    contract_unit_currency: base,
    tick_size: i.kind === 'perp' ? '0.5' : '0.1',
    strike_price: i.strike === null ? null : String(i.strike),
    settlement_time: i.expiry === null ? null : new Date(i.expiry).toISOString().replace('.000Z', 'Z'),
    underlying_asset: { symbol: base },
    settling_asset: { symbol: i.settlementCurrency },
    quoting_asset: { symbol: i.quoteCurrency },
    spot_index: { symbol: `.DE${base.slice(0, 2)}USD` },
  };
}

function productsRest(w: DeltaWire, market: SandboxMarket, q: URLSearchParams): RestReply {
  const types = (q.get('contract_types') ?? '').split(',').filter((x) => x.length > 0);
  const pageSize = Math.min(1000, Math.max(1, Number(q.get('page_size') ?? 100)));
  const after = Number(Buffer.from(q.get('after') ?? '', 'base64url').toString() || '0') || 0;
  const all = market
    .instruments(w.venue)
    .filter((i) => i.active && (i.kind === 'perp' || i.kind === 'option') && (types.length === 0 || types.includes(contractType(i))));
  const page = all.slice(after, after + pageSize);
  const next = after + pageSize < all.length ? Buffer.from(String(after + pageSize)).toString('base64url') : null;
  const result = page.map((i) => productItem(w, i));
  return { status: 200, body: { success: true, result, meta: { after: next, before: null, limit: pageSize, total_count: all.length } } };
}

// --- WS protocol ---

/** subscribe / unsubscribe: each channel applied to its symbols or refused; one `subscriptions` reply. */
function onSubscription(host: VenueHost, c: Client, subscribe: boolean, channels: unknown): void {
  const chans = Array.isArray(channels) ? (channels as unknown[]) : [];
  const reply: unknown[] = [];
  for (const ch of chans) {
    const o = (typeof ch === 'object' && ch !== null ? ch : {}) as { name?: unknown; symbols?: unknown };
    const name = typeof o.name === 'string' ? o.name : '';
    if (!CHANNELS.has(name)) {
      reply.push({ name, error: `subscription forbidden on ${name}` });
      continue;
    }
    const symbols = Array.isArray(o.symbols) ? o.symbols.filter((x): x is string => typeof x === 'string') : [];
    for (const s of symbols) {
      if (subscribe) c.subs.add(`${name}|${s}`);
      else c.subs.delete(`${name}|${s}`);
    }
    reply.push({ name, symbols });
  }
  host.send(c, JSON.stringify({ type: 'subscriptions', channels: reply }));
}

function enableHeartbeat(host: VenueHost, timings: ProtocolTimings, c: Client): void {
  if (c.state.get('heartbeat') === true) return;
  c.state.set('heartbeat', true);
  c.timers.push(setInterval(() => host.send(c, '{"type":"heartbeat"}'), timings.deltaHeartbeatMs));
}

function onMessage(host: VenueHost, timings: ProtocolTimings, c: Client, text: string): void {
  let msg: { type?: unknown; payload?: { channels?: unknown } };
  try {
    msg = JSON.parse(text) as typeof msg;
  } catch {
    host.send(c, JSON.stringify({ type: 'error', message: 'invalid json' }));
    return;
  }
  if (msg.type === 'enable_heartbeat') enableHeartbeat(host, timings, c);
  else if (msg.type === 'ping') host.send(c, '{"type":"pong"}');
  else if (msg.type === 'subscribe' || msg.type === 'unsubscribe') onSubscription(host, c, msg.type === 'subscribe', msg.payload?.channels);
  else host.send(c, JSON.stringify({ type: 'error', message: `unknown type ${String(msg.type)}` }));
}

/** No subscription within deltaNoActivityMs of connecting closes the connection. */
function closeIfNoSubscription(timings: ProtocolTimings, c: Client): void {
  c.timers.push(
    setTimeout(() => {
      if (c.subs.size === 0) c.ws.close(1000, 'no activity');
    }, timings.deltaNoActivityMs),
  );
}

function malformed(host: VenueHost, kind: MalformedKind): number {
  const good = JSON.stringify({
    type: 'trades',
    sy: 'C-BTC-90000-310326',
    p: '1520.5',
    s: 250,
    r: 't',
    t: Date.now() * 1000,
    ts: Date.now() * 1000,
  });
  const frame = malformedFrame(kind, good, '502 Bad Gateway', (g) => g.replace('"r":"t"', '"r":"taker"'));
  return host.sendAll(frame);
}

export async function startDeltaServer(venue: DeltaVenue, ctx: VenueServerContext, port = 0): Promise<VenueServer> {
  const { market, delivered, timings } = ctx;
  const wire: DeltaWire = { venue, spec: VENUE_SPECS[venue], productIds: new Map(), lastUs: 0 };
  const host: VenueHost = new VenueHost(venue, {
    wsPaths: (p) => p === '/',
    rest: (path, q) => (path === '/v2/products' ? productsRest(wire, market, q) : null),
    onConnect: (c) => closeIfNoSubscription(timings, c),
    onMessage: (c, text) => onMessage(host, timings, c, text),
  });
  const bound = await host.listen(port);
  const publish = (events: readonly MarketEvent[]): void => {
    publishTrades(host, wire, delivered, events);
    publishOptionTickers(host, wire, market, events);
    publishPerpStats(host, wire, events);
  };
  return venueServer(venue, host, { rest: `http://127.0.0.1:${bound}`, ws: { main: `ws://127.0.0.1:${bound}` } }, publish, (kind) =>
    malformed(host, kind),
  );
}
