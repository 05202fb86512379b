import type { LinearTrade, MarketEvent, OptionTicker, OptionTrade, PerpStats } from '../../../schemas/events.ts';
import { VENUE_SPECS } from '../market/venues.ts';
import { VenueHost, groupBy, type Client, type RestReply, venueServer, malformedFrame } from './host.ts';
import type { MalformedKind, VenueServer, VenueServerContext } from './types.ts';

/**
 * Deribit JSON-RPC over WebSocket (/ws/api/v2) and REST (/api/v2/public/get_instruments).
 * Channels: trades.option.{CUR}.100ms, trades.{instrument}.100ms (perps carry `liquidation`), ticker.{instrument}.100ms,
 * deribit_price_index.{idx}, deribit_volatility_index.{idx}. Heartbeat: public/set_heartbeat -> test_request,
 * unanswered test_request -> disconnect.
 */
const PERPETUAL_EXPIRY = 32503708800000;
const spec = VENUE_SPECS.deribit;

function notification(channel: string, data: unknown): string {
  return JSON.stringify({ jsonrpc: '2.0', method: 'subscription', params: { channel, data } });
}

function currencyOf(instrument: string): string {
  const head = instrument.split('-')[0] ?? '';
  return head.includes('_') ? (head.split('_')[1] ?? head) : head;
}

export async function startDeribitServer(ctx: VenueServerContext, port = 0): Promise<VenueServer> {
  const { market, delivered, timings } = ctx;
  const seq = new Map<string, number>();
  const liquidationIds = new Set<string>();

  const contractsOf = (instrument: string): { contractSize: number; inverse: boolean } => {
    const perp = spec.perps.find((p) => p.instrument === instrument);
    return perp ? { contractSize: perp.contractSize, inverse: perp.inverse } : { contractSize: 1, inverse: false };
  };

  function optionTrade(t: OptionTrade): Record<string, unknown> {
    const s = (seq.get(t.instrument) ?? 0) + 1;
    seq.set(t.instrument, s);
    const q = market.optionQuote('deribit', t.instrument);
    return {
      trade_seq: s, trade_id: t.tradeId, timestamp: t.ts, tick_direction: t.side === 'buy' ? 0 : 2, price: t.price,
      mark_price: q?.markVenue ?? t.price, iv: Number(((t.iv ?? 0) * 100).toFixed(2)), instrument_name: t.instrument,
      index_price: t.indexPrice, direction: t.side, amount: t.size, contracts: t.size,
    };
  }

  function perpTrade(t: LinearTrade): Record<string, unknown> {
    const s = (seq.get(t.instrument) ?? 0) + 1;
    seq.set(t.instrument, s);
    const { contractSize, inverse } = contractsOf(t.instrument);
    const amount = inverse ? Math.round((t.size * t.price) / contractSize) * contractSize : t.size;
    return {
      trade_seq: s, trade_id: t.tradeId, timestamp: t.ts, tick_direction: t.side === 'buy' ? 0 : 2, price: t.price,
      mark_price: t.price, instrument_name: t.instrument, index_price: market.index(t.symbol), direction: t.side, amount,
      contracts: Number((amount / contractSize).toFixed(8)),
      ...(liquidationIds.has(t.tradeId) ? { liquidation: 'T' } : {}),
    };
  }

  function optionTicker(t: OptionTicker): Record<string, unknown> {
    const series = spec.options.find((o) => o.symbol === t.symbol);
    const inverse = series?.inverse ?? true;
    const idx = t.indexPrice ?? 1;
    const toVenue = (usd: number): number => (inverse ? Number((usd / idx).toFixed(8)) : Number(usd.toFixed(4)));
    const mark = toVenue(t.markPrice ?? 0);
    const pct = (x: number | null): number => Number(((x ?? 0) * 100).toFixed(2));
    return {
      underlying_price: t.underlyingPrice, underlying_index: 'index_price', timestamp: t.ts,
      stats: { volume: null, price_change: null, low: null, high: null }, state: 'open', settlement_price: mark,
      open_interest: t.openInterest, min_price: 0.0001, max_price: Math.max(mark * 3, 0.01), mark_price: mark,
      mark_iv: pct(t.markIv), bid_iv: pct(t.bidIv), ask_iv: pct(t.askIv), last_price: null, interest_rate: 0,
      instrument_name: t.instrument, index_price: t.indexPrice, estimated_delivery_price: t.indexPrice,
      greeks: { delta: t.delta, gamma: t.gamma, vega: t.vega, theta: t.theta, rho: 0 },
      best_bid_price: toVenue((t.markPrice ?? 0) * 0.97), best_ask_price: toVenue((t.markPrice ?? 0) * 1.03),
      best_bid_amount: 10, best_ask_amount: 10,
    };
  }

  function perpTicker(s: PerpStats): Record<string, unknown> {
    const { inverse } = contractsOf(s.instrument);
    return {
      timestamp: s.ts, stats: { volume: null, price_change: null, low: null, high: null }, state: 'open',
      settlement_price: s.markPrice, open_interest: inverse ? Math.round((s.openInterest ?? 0) * (s.markPrice ?? 0)) : s.openInterest,
      min_price: (s.markPrice ?? 0) * 0.97, max_price: (s.markPrice ?? 0) * 1.03, mark_price: s.markPrice, last_price: s.markPrice,
      instrument_name: s.instrument, index_price: s.indexPrice, estimated_delivery_price: s.indexPrice,
      funding_8h: s.fundingRate, current_funding: s.fundingRate, interest_value: 0,
      best_bid_price: s.markPrice, best_ask_price: s.markPrice, best_bid_amount: 1000, best_ask_amount: 1000,
    };
  }

  function publish(events: readonly MarketEvent[]): void {
    for (const e of events) if (e.type === 'liquidation') liquidationIds.add(e.event.id.replace('deribit:liq:', ''));
    const sent = new Set<MarketEvent>();
    const optTrades = events.filter((e): e is Extract<MarketEvent, { type: 'option_trade' }> => e.type === 'option_trade');
    const perpTrades = events.filter((e): e is Extract<MarketEvent, { type: 'perp_trade' }> => e.type === 'perp_trade');
    const encoded = new Map<MarketEvent, Record<string, unknown>>();
    for (const e of optTrades) encoded.set(e, optionTrade(e.event));
    for (const e of perpTrades) encoded.set(e, perpTrade(e.event));
    const send = (channel: string, list: readonly MarketEvent[]): void => {
      if (host.broadcast(channel, () => notification(channel, list.map((e) => encoded.get(e)))) > 0) for (const e of list) sent.add(e);
    };
    for (const [cur, list] of groupBy(optTrades, (e) => currencyOf(e.event.instrument))) {
      send(`trades.option.${cur}.100ms`, list);
      send('trades.option.any.100ms', list);
    }
    for (const [inst, list] of groupBy([...optTrades, ...perpTrades], (e) => (e.type === 'option_trade' || e.type === 'perp_trade' ? e.event.instrument : null))) {
      send(`trades.${inst}.100ms`, list);
    }
    for (const e of events) {
      if (e.type === 'option_ticker') {
        const ch = `ticker.${e.event.instrument}.100ms`;
        host.broadcast(ch, () => notification(ch, optionTicker(e.event)));
      } else if (e.type === 'perp_stats') {
        const ch = `ticker.${e.event.instrument}.100ms`;
        host.broadcast(ch, () => notification(ch, perpTicker(e.event)));
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
    // A liquidation reached the wire when the trade it printed as did.
    const sentTradeIds = new Set([...sent].map((e) => (e.type === 'perp_trade' ? e.event.tradeId : '')));
    for (const e of events) if (e.type === 'liquidation' && sentTradeIds.has(e.event.id.replace('deribit:liq:', ''))) sent.add(e);
    delivered.recordEvents([...sent]);
    if (liquidationIds.size > 10_000) liquidationIds.clear();
  }

  // --- REST ---
  function instrumentsRest(query: URLSearchParams): RestReply {
    const currency = query.get('currency');
    const kind = query.get('kind');
    if (!currency) return { status: 400, body: { jsonrpc: '2.0', error: { message: 'Invalid params', data: { reason: 'currency required', param: 'currency' }, code: -32602 } } };
    const now = Date.now();
    const result: Record<string, unknown>[] = [];
    let id = 1;
    for (const ins of market.instruments('deribit')) {
      if (ins.kind === 'spot') continue;
      const apiKind = ins.kind === 'option' ? 'option' : 'future';
      if (kind && kind !== apiKind) continue;
      const cur = currencyOf(ins.instrument);
      if (currency !== 'any' && currency !== cur) continue;
      const base = (ins.instrument.split('-')[0] ?? '').split('_')[0] ?? '';
      const series = spec.options.find((o) => o.symbol === ins.symbol);
      const perp = spec.perps.find((p) => p.instrument === ins.instrument);
      const days = ins.expiry ? (ins.expiry - ins.ts) / 86_400_000 : 0;
      result.push({
        instrument_name: ins.instrument, instrument_id: id++, kind: apiKind, is_active: ins.active,
        base_currency: base, quote_currency: ins.quoteCurrency, counter_currency: ins.quoteCurrency,
        settlement_currency: ins.settlementCurrency, contract_size: ins.contractSize,
        ...(ins.kind === 'option'
          ? { option_type: ins.optionType, strike: ins.strike, settlement_period: days <= 1 ? 'day' : days <= 7 ? 'week' : 'month',
              expiration_timestamp: ins.expiry, tick_size: series?.priceTick ?? 0.0001, min_trade_amount: series?.lot ?? 0.1 }
          : { settlement_period: 'perpetual', expiration_timestamp: PERPETUAL_EXPIRY, tick_size: 0.5, min_trade_amount: perp?.lot ?? 1 }),
        creation_timestamp: ins.ts, price_index: `${base.toLowerCase()}_${ins.settlementCurrency === 'USDC' ? 'usdc' : 'usd'}`,
        maker_commission: 0.0003, taker_commission: 0.0003, block_trade_commission: 0.0003, rfq: false,
      });
    }
    return { status: 200, body: { jsonrpc: '2.0', result, usIn: now * 1000, usOut: now * 1000 + 50, usDiff: 50, testnet: false } };
  }

  // --- WS protocol ---
  const KNOWN = /^(trades\.option\.(BTC|ETH|USDC|any)\.100ms|trades\.[A-Z0-9_]+-[A-Za-z0-9_-]+\.100ms|ticker\.[A-Z0-9_]+-[A-Za-z0-9_-]+\.100ms|deribit_price_index\.[a-z_]+|deribit_volatility_index\.[a-z_]+)$/;
  function reply(c: Client, id: unknown, result: unknown): void {
    host.send(c, JSON.stringify({ jsonrpc: '2.0', id, result, usIn: Date.now() * 1000, usOut: Date.now() * 1000 + 20, usDiff: 20, testnet: false }));
  }
  function error(c: Client, id: unknown, code: number, message: string): void {
    host.send(c, JSON.stringify({ jsonrpc: '2.0', id, error: { code, message }, testnet: false }));
  }
  function startHeartbeat(c: Client, intervalSec: number): void {
    for (const t of c.timers) clearInterval(t);
    c.timers.length = 0;
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

  function onMessage(c: Client, text: string): void {
    let msg: { id?: unknown; method?: unknown; params?: { channels?: unknown; interval?: unknown } };
    try {
      msg = JSON.parse(text) as typeof msg;
    } catch {
      error(c, null, -32700, 'Parse error');
      return;
    }
    const id = msg.id ?? null;
    switch (msg.method) {
      case 'public/subscribe':
      case 'public/unsubscribe': {
        const chans = Array.isArray(msg.params?.channels) ? msg.params.channels.filter((x): x is string => typeof x === 'string') : [];
        const ok = chans.filter((ch) => KNOWN.test(ch));
        for (const ch of ok) {
          if (msg.method === 'public/subscribe') c.subs.add(ch);
          else c.subs.delete(ch);
        }
        reply(c, id, ok);
        return;
      }
      case 'public/set_heartbeat': {
        const interval = Number(msg.params?.interval);
        if (!Number.isFinite(interval) || interval < timings.deribitMinHeartbeatSec) {
          error(c, id, 11029, 'invalid_arguments');
          return;
        }
        startHeartbeat(c, interval);
        reply(c, id, 'ok');
        return;
      }
      case 'public/disable_heartbeat':
        for (const t of c.timers) clearInterval(t);
        c.timers.length = 0;
        reply(c, id, 'ok');
        return;
      case 'public/test':
        c.state.set('hbPending', false);
        reply(c, id, { version: '1.2.26' });
        return;
      case 'public/get_time':
        reply(c, id, Date.now());
        return;
      case 'public/get_instruments':
        reply(c, id, (instrumentsRest(new URLSearchParams(Object.entries((msg.params ?? {}) as Record<string, string>))).body as { result: unknown }).result);
        return;
      default:
        error(c, id, -32601, 'Method not found');
    }
  }

  const host = new VenueHost('deribit', {
    wsPaths: (p) => p === '/ws/api/v2',
    rest: (path, query) => (path === '/api/v2/public/get_instruments' ? instrumentsRest(query) : null),
    onMessage,
  });
  const bound = await host.listen(port);

  function malformed(kind: MalformedKind): number {
    const good = notification('trades.option.BTC.100ms', [
      { trade_seq: 1, trade_id: 'x1', timestamp: Date.now(), price: 0.01, instrument_name: 'BTC-27DEC24-100000-C', direction: 'buy', amount: 1 },
    ]);
    const frame = malformedFrame(kind, good, '<html>502 Bad Gateway</html>', (g) => g.replace('"price":0.01', '"price":"abc"').replace('"amount":1', '"amount":null'));
    return host.sendAll(frame);
  }

  return venueServer('deribit', host, { rest: `http://127.0.0.1:${bound}`, ws: { main: `ws://127.0.0.1:${bound}/ws/api/v2` } }, publish, malformed);
}
