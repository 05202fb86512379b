import type { Instrument, LinearTrade, MarketEvent, OptionTicker, OptionTrade, PerpStats } from '#schemas/events.ts';
import type { TradeLedger } from '../market/ledger.ts';
import type { SandboxMarket } from '../market/market.ts';
import { encodeTrade } from '#ingest/venues/paradex/sbe-encode.ts';
import { VENUE_SPECS } from '../market/venues.ts';
import { VenueHost, oversizedFrame, str, type Client, type RestReply, venueServer } from './host.ts';
import { startServerPings } from './pings.ts';
import type { MalformedKind, ProtocolTimings, VenueServer, VenueServerContext } from './types.ts';

/**
 * Paradex: REST GET /v1/markets and the JSON-RPC WebSocket /v1 (`subscribe` one channel per call). A connection
 * opened with `?sbeSchemaId=1&sbeSchemaVersion=1` gets `trades.{market}` as binary SBE TradeEvent frames (int64 ×1e-8
 * prices, µs times, LIQUIDATION fills as trade_type 2); without it, JSON pushes. `markets_summary` (all markets or
 * `markets_summary.{market}`) and `funding_data.{market}` are JSON pushes here. Server pings every 55 s, pong within
 * 5 s or the connection is terminated. An unsupported SBE schema / version is refused at the upgrade.
 */
const spec = VENUE_SPECS.paradex;
const E8 = 100_000_000;
const fixed8 = (x: number): bigint => BigInt(Math.round(x * E8));

function listingItem(i: Instrument): Record<string, unknown> {
  const base = i.instrument.split('-')[0] ?? '';
  const common = { symbol: i.instrument, base_currency: base, quote_currency: 'USD', settlement_currency: 'USDC' };
  if (i.kind === 'perp') {
    const p = spec.perps.find((x) => x.instrument === i.instrument);
    return {
      ...common,
      asset_kind: 'PERP',
      expiry_at: 0,
      order_size_increment: String(p?.lot ?? 0.0001),
      price_tick_size: '0.1',
      funding_period_hours: 8,
    };
  }
  const s = spec.options.find((o) => o.symbol === i.symbol);
  return {
    ...common,
    asset_kind: 'OPTION',
    expiry_at: i.expiry,
    option_type: i.optionType === 'call' ? 'CALL' : 'PUT',
    strike_price: String(i.strike),
    order_size_increment: String(s?.lot ?? 0.001),
    price_tick_size: String(s?.priceTick ?? 5),
  };
}

/** What the trade encoders carry between publishes: the SBE sequence number and the ids of liquidation fills. */
interface TradeWireState {
  seq: number;
  readonly liquidationIds: Set<string>;
}

// --- frame encoders ---

function sbeTrade(w: TradeWireState, t: OptionTrade | LinearTrade): Buffer {
  const us = BigInt(t.ts) * 1000n;
  return encodeTrade({
    timestampUs: us + 150n,
    seqNo: BigInt(w.seq++),
    tradeId: BigInt(t.tradeId),
    side: t.side === 'buy' ? 1 : 2,
    price: fixed8(t.price),
    size: fixed8(t.size),
    createdAtUs: us,
    tradeType: w.liquidationIds.has(t.tradeId) ? 2 : 1,
    market: t.instrument,
  });
}

function jsonTrade(w: TradeWireState, channel: string, t: OptionTrade | LinearTrade): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    method: 'subscription',
    params: {
      channel,
      data: {
        id: t.tradeId,
        market: t.instrument,
        side: t.side === 'buy' ? 'BUY' : 'SELL',
        price: str(t.price, 8),
        size: str(t.size, 8),
        created_at: t.ts,
        trade_type: w.liquidationIds.has(t.tradeId) ? 'LIQUIDATION' : 'FILL',
      },
    },
  });
}

function summaryData(e: OptionTicker | PerpStats): Record<string, unknown> {
  const m = e.markPrice ?? 0;
  const common = {
    symbol: e.instrument,
    mark_price: str(m, 4),
    last_traded_price: str(m, 4),
    bid: str(m * 0.98, 4),
    ask: str(m * 1.02, 4),
    bid_size: '1',
    ask_size: '1',
    open_interest: str(e.openInterest ?? 0, 8),
    volume_24h: '0',
    total_volume: '0',
    created_at: e.ts,
  };
  if ('markIv' in e) {
    return {
      ...common,
      underlying_price: str(e.indexPrice ?? 0, 2),
      mark_iv: str(e.markIv ?? 0, 4),
      bid_iv: str(e.bidIv ?? 0, 4),
      ask_iv: str(e.askIv ?? 0, 4),
      last_iv: str(e.markIv ?? 0, 4),
      greeks: { delta: str(e.delta ?? 0, 6), gamma: str(e.gamma ?? 0, 10), vega: str(e.vega ?? 0, 6), theta: str(e.theta ?? 0, 6) },
      funding_rate: null,
    };
  }
  return {
    ...common,
    underlying_price: str(e.indexPrice ?? 0, 2),
    funding_rate: str(e.fundingRate ?? 0, 8),
    future_funding_rate: str(e.fundingRate ?? 0, 8),
  };
}

function push(channel: string, data: unknown): string {
  return JSON.stringify({ jsonrpc: '2.0', method: 'subscription', params: { channel, data } });
}

// --- publishing ---

/** One trade to its `trades.{market}` / `trades.ALL` subscribers, SBE or JSON per connection; returns how many got it. */
function publishTrade(host: VenueHost, w: TradeWireState, t: OptionTrade | LinearTrade): number {
  const channel = `trades.${t.instrument}`;
  let bin: Buffer | null = null;
  let text: string | null = null;
  let n = 0;
  for (const c of host.clients) {
    if (!c.subs.has(channel) && !c.subs.has('trades.ALL')) continue;
    const frame = c.state.get('sbe') === true ? (bin ??= sbeTrade(w, t)) : (text ??= jsonTrade(w, channel, t));
    if (host.send(c, frame)) n++;
  }
  return n;
}

/** markets_summary, to the all-markets and the per-market subscribers. */
function publishSummary(host: VenueHost, e: OptionTicker | PerpStats): void {
  const data = summaryData(e);
  host.broadcast('markets_summary', () => push('markets_summary', data));
  const own = `markets_summary.${e.instrument}`;
  host.broadcast(own, () => push(own, data));
}

function publishFunding(host: VenueHost, s: PerpStats): void {
  const ch = `funding_data.${s.instrument}`;
  host.broadcast(ch, () =>
    push(ch, {
      market: s.instrument,
      funding_rate: str(s.fundingRate ?? 0, 8),
      funding_index: '0',
      funding_premium: '0',
      created_at: s.ts,
    }),
  );
}

function publish(host: VenueHost, w: TradeWireState, delivered: TradeLedger, events: readonly MarketEvent[]): void {
  for (const e of events) if (e.type === 'liquidation') w.liquidationIds.add(e.event.id.replace('paradex:liq:', ''));
  const sentIds = new Set<string>();
  const sent: MarketEvent[] = [];
  for (const e of events) {
    if (e.type !== 'option_trade' && e.type !== 'perp_trade') continue;
    if (publishTrade(host, w, e.event) > 0) {
      sent.push(e);
      sentIds.add(e.event.tradeId);
    }
  }
  for (const e of events) {
    // A liquidation reached the wire when the fill it printed as did.
    if (e.type === 'liquidation' && sentIds.has(e.event.id.replace('paradex:liq:', ''))) sent.push(e);
    else if (e.type === 'option_ticker') publishSummary(host, e.event);
    else if (e.type === 'perp_stats') {
      publishSummary(host, e.event);
      publishFunding(host, e.event);
    }
  }
  delivered.recordEvents(sent);
  if (w.liquidationIds.size > 10_000) w.liquidationIds.clear();
}

// --- REST ---

function marketsRest(market: SandboxMarket): RestReply {
  const results = market
    .instruments('paradex')
    .filter((i) => i.active && (i.kind === 'perp' || i.kind === 'option'))
    .map(listingItem);
  // A perpetual option, as the venue lists them (no expiry: the connector skips it).
  results.push({
    symbol: 'BTC-USD-100000-C',
    base_currency: 'BTC',
    quote_currency: 'USD',
    settlement_currency: 'USDC',
    asset_kind: 'PERP_OPTION',
    expiry_at: 0,
    option_type: 'CALL',
    strike_price: '100000',
  });
  return { status: 200, body: { results } };
}

// --- WS protocol ---

const CHANNEL = /^(trades\.[A-Z]+-[A-Z0-9-]+|trades\.ALL|markets_summary(\.[A-Z]+-[A-Z0-9-]+)?|funding_data\.[A-Z]+-USD-PERP)$/;

/** An SBE connection must ask for schema 1, version 0 or 1; JSON connections give no schema. */
function acceptsUpgrade(path: string, q: URLSearchParams): boolean {
  return (
    path === '/v1' &&
    (q.get('sbeSchemaId') === null ||
      (q.get('sbeSchemaId') === '1' && (q.get('sbeSchemaVersion') === '0' || q.get('sbeSchemaVersion') === '1')))
  );
}

function rpcError(host: VenueHost, c: Client, id: unknown, code: number, message: string): void {
  host.send(c, JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id }));
}

function onMessage(host: VenueHost, c: Client, text: string): void {
  let msg: { id?: unknown; method?: unknown; params?: { channel?: unknown } };
  try {
    msg = JSON.parse(text) as typeof msg;
  } catch {
    rpcError(host, c, null, -32700, 'parse error');
    return;
  }
  const id = msg.id ?? null;
  const channel = msg.params?.channel;
  if (msg.method !== 'subscribe' && msg.method !== 'unsubscribe') return rpcError(host, c, id, -32601, 'method not found');
  if (typeof channel !== 'string' || !CHANNEL.test(channel)) return rpcError(host, c, id, -32602, `invalid channel ${String(channel)}`);
  if (msg.method === 'subscribe' && c.subs.has(channel)) return rpcError(host, c, id, -32600, 'already subscribed');
  if (msg.method === 'subscribe') c.subs.add(channel);
  else c.subs.delete(channel);
  const us = Date.now() * 1000;
  host.send(c, JSON.stringify({ jsonrpc: '2.0', result: { channel }, usIn: us, usDiff: 120, id }));
}

function onConnect(host: VenueHost, timings: ProtocolTimings, c: Client): void {
  c.state.set('sbe', c.query.get('sbeSchemaId') === '1');
  startServerPings(host, c, timings.paradexPingIntervalMs, timings.paradexPongTimeoutMs);
}

function malformed(host: VenueHost, w: TradeWireState, kind: MalformedKind): number {
  const t: LinearTrade = {
    venue: 'paradex',
    symbol: 'BTCUSDT',
    ts: Date.now(),
    receivedAt: Date.now(),
    id: 'x',
    market: 'perp',
    instrument: 'BTC-USD-PERP',
    price: 96500.5,
    size: 0.125,
    side: 'sell',
    tradeId: '77',
  };
  if (kind === 'truncated') return host.sendAll(sbeTrade(w, t).subarray(0, 40));
  if (kind === 'not_json') return host.sendAll('Bad Gateway');
  if (kind === 'oversized') return host.sendAll(oversizedFrame('Bad Gateway'));
  return host.sendAll(jsonTrade(w, 'trades.BTC-USD-PERP', t).replace('"side":"SELL"', '"side":"SHORT"'));
}

export async function startParadexServer(ctx: VenueServerContext, port = 0): Promise<VenueServer> {
  const { market, delivered, timings } = ctx;
  const wire: TradeWireState = { seq: 1, liquidationIds: new Set() };
  const host: VenueHost = new VenueHost('paradex', {
    wsPaths: acceptsUpgrade,
    rest: (path): RestReply | null => (path === '/v1/markets' ? marketsRest(market) : null),
    onConnect: (c) => onConnect(host, timings, c),
    onMessage: (c, text) => onMessage(host, c, text),
  });
  const bound = await host.listen(port);
  return venueServer(
    'paradex',
    host,
    { rest: `http://127.0.0.1:${bound}`, ws: { main: `ws://127.0.0.1:${bound}/v1` } },
    (events) => publish(host, wire, delivered, events),
    (kind) => malformed(host, wire, kind),
  );
}
