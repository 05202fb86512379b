import type { MarketEvent, MarketSymbol, OptionTicker, PerpStats } from '../../../schemas/events.ts';
import { VENUE_SPECS } from '../market/venues.ts';
import { VenueHost, groupBy, str, type Client, type RestReply, venueServer, malformedFrame } from './host.ts';
import type { MalformedKind, VenueServer, VenueServerContext } from './types.ts';

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

export async function startBybitServer(ctx: VenueServerContext, port = 0): Promise<VenueServer> {
  const { market, delivered, timings } = ctx;
  let msgSeq = 3_000_000_000;

  function envelope(topic: string, ts: number, data: unknown, type = 'snapshot', withId = false): string {
    return JSON.stringify({ ...(withId ? { id: `${topic}-${++msgSeq}-${ts}` } : {}), topic, ts, type, data, ...(withId ? {} : { cs: ++msgSeq }) });
  }

  function optionTicker(t: OptionTicker): Record<string, string> {
    const m = t.markPrice ?? 0;
    return {
      symbol: t.instrument, bidPrice: str(m * 0.97, 4), bidSize: '10', bidIv: str(t.bidIv ?? 0, 4), askPrice: str(m * 1.03, 4),
      askSize: '10', askIv: str(t.askIv ?? 0, 4), lastPrice: str(m, 4), highPrice24h: str(m, 4), lowPrice24h: str(m, 4),
      markPrice: str(m, 8), indexPrice: str(t.indexPrice ?? 0, 4), markPriceIv: str(t.markIv ?? 0, 4),
      underlyingPrice: str(t.underlyingPrice ?? 0, 4), openInterest: str(t.openInterest ?? 0, 4), turnover24h: '0', volume24h: '0',
      totalVolume: '0', totalTurnover: '0', delta: str(t.delta ?? 0, 8), gamma: str(t.gamma ?? 0, 10), vega: str(t.vega ?? 0, 8),
      theta: str(t.theta ?? 0, 8), predictedDeliveryPrice: '0', change24h: '0',
    };
  }

  function perpTicker(s: PerpStats): Record<string, string> {
    const mark = s.markPrice ?? 0;
    return {
      symbol: s.instrument, tickDirection: 'PlusTick', lastPrice: str(mark), markPrice: str(mark), indexPrice: str(s.indexPrice ?? 0),
      openInterest: str(s.openInterest ?? 0, 4), openInterestValue: str(s.openInterestUsd ?? 0, 2), fundingRate: str(s.fundingRate ?? 0, 8),
      nextFundingTime: String(s.nextFundingTime ?? ''), bid1Price: str(mark), bid1Size: '1', ask1Price: str(mark), ask1Size: '1',
    };
  }

  function publish(events: readonly MarketEvent[]): void {
    const sent: MarketEvent[] = [];
    const byKey = groupBy(events, (e) => {
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
    });
    for (const [key, list] of byKey) {
      const topic = key.slice(key.indexOf('|') + 1);
      const first = list[0];
      if (!first) continue;
      const ts = first.event.ts;
      let n = 0;
      if (first.type === 'option_trade') {
        n = host.broadcast(key, () =>
          envelope(topic, ts, list.map((e) => {
            if (e.type !== 'option_trade') return null;
            const t = e.event;
            const q = market.optionQuote('bybit', t.instrument);
            return {
              i: t.tradeId, T: t.ts, p: str(t.price, 4), v: str(t.size, 4), S: t.side === 'buy' ? 'Buy' : 'Sell', s: t.instrument, BT: false,
              RPI: false, mP: str(q?.markUsd ?? t.price, 4), iP: str(t.indexPrice ?? 0, 4), mIv: str(q?.markIv ?? 0, 4), iv: str(t.iv ?? 0, 4),
            };
          }), 'snapshot', true),
        );
      } else if (first.type === 'perp_trade' || first.type === 'spot_trade') {
        n = host.broadcast(key, () =>
          envelope(topic, ts, list.map((e) => {
            if (e.type !== 'perp_trade' && e.type !== 'spot_trade') return null;
            const t = e.event;
            return { T: t.ts, s: t.instrument, S: t.side === 'buy' ? 'Buy' : 'Sell', v: str(t.size), p: str(t.price), L: t.side === 'buy' ? 'PlusTick' : 'MinusTick', i: t.tradeId, BT: false, seq: ++msgSeq };
          })),
        );
      } else if (first.type === 'liquidation') {
        n = host.broadcast(key, () =>
          envelope(topic, ts, list.map((e) => {
            if (e.type !== 'liquidation') return null;
            const l = e.event;
            // S "Buy" = a long position was liquidated.
            return { T: l.ts, s: l.instrument, S: l.side === 'long' ? 'Buy' : 'Sell', v: str(l.size), p: str(l.price) };
          })),
        );
      } else if (first.type === 'option_ticker') {
        for (const e of list) if (e.type === 'option_ticker') host.broadcast(key, () => envelope(topic, e.event.ts, optionTicker(e.event), 'snapshot', true));
      } else if (first.type === 'perp_stats') {
        for (const e of list) {
          if (e.type !== 'perp_stats') continue;
          const data = perpTicker(e.event);
          for (const c of host.clients) {
            if (!c.subs.has(key)) continue;
            const snapped = (c.state.get('snapshotted') as Set<string> | undefined) ?? new Set<string>();
            c.state.set('snapshotted', snapped);
            const type = snapped.has(topic) ? 'delta' : 'snapshot';
            if (host.send(c, envelope(topic, e.event.ts, data, type))) snapped.add(topic);
          }
        }
      }
      if (n > 0) sent.push(...list);
    }
    delivered.recordEvents(sent);
  }

  // --- REST ---
  function instrumentsRest(q: URLSearchParams): RestReply {
    const category = q.get('category');
    const ok = (result: unknown): RestReply => ({ status: 200, body: { retCode: 0, retMsg: 'OK', result, retExtInfo: {}, time: Date.now() } });
    if (category !== 'option' && category !== 'linear' && category !== 'spot') {
      return { status: 200, body: { retCode: 10001, retMsg: 'params error: category', result: {}, retExtInfo: {}, time: Date.now() } };
    }
    const baseCoin = q.get('baseCoin');
    const symbol = q.get('symbol');
    const limit = Math.min(1000, Math.max(1, Number(q.get('limit') ?? (category === 'option' ? 500 : 500))));
    const offset = q.get('cursor') ? Number(Buffer.from(q.get('cursor') ?? '', 'base64url').toString()) || 0 : 0;
    const all = market
      .instruments('bybit')
      .filter((i) => (category === 'option' ? i.kind === 'option' : category === 'linear' ? i.kind === 'perp' : i.kind === 'spot'))
      .filter((i) => (!baseCoin || BASE_OF(i.symbol) === baseCoin) && (!symbol || i.instrument === symbol));
    const page = all.slice(offset, offset + limit);
    const next = offset + limit < all.length ? Buffer.from(String(offset + limit)).toString('base64url') : '';
    const list = page.map((i) => {
      const base = BASE_OF(i.symbol);
      if (i.kind === 'option') {
        const s = spec.options.find((o) => o.symbol === i.symbol);
        return {
          symbol: i.instrument, status: 'Trading', baseCoin: base, quoteCoin: 'USD', settleCoin: 'USDC', optionsType: i.optionType === 'call' ? 'Call' : 'Put',
          launchTime: String(i.ts), deliveryTime: String(i.expiry), deliveryFeeRate: '0.00015',
          priceFilter: { minPrice: String(s?.priceTick ?? 5), maxPrice: '10000000', tickSize: String(s?.priceTick ?? 5) },
          lotSizeFilter: { maxOrderQty: '10000', minOrderQty: String(s?.lot ?? 0.01), qtyStep: String(s?.lot ?? 0.01) }, displayName: '',
        };
      }
      const l = (i.kind === 'perp' ? spec.perps : spec.spots).find((x) => x.instrument === i.instrument);
      if (i.kind === 'perp') {
        return {
          symbol: i.instrument, contractType: 'LinearPerpetual', status: 'Trading', baseCoin: base, quoteCoin: 'USDT', settleCoin: 'USDT',
          launchTime: String(i.ts), deliveryTime: '0', deliveryFeeRate: '', priceScale: '2', fundingInterval: 480,
          priceFilter: { minPrice: '0.1', maxPrice: '1999999.8', tickSize: '0.1' },
          lotSizeFilter: { maxOrderQty: '1190', minOrderQty: String(l?.lot ?? 0.001), qtyStep: String(l?.lot ?? 0.001), postOnlyMaxOrderQty: '1190' },
          unifiedMarginTrade: true, copyTrading: 'both',
        };
      }
      return {
        symbol: i.instrument, baseCoin: base, quoteCoin: 'USDT', innovation: '0', status: 'Trading', marginTrading: 'both',
        lotSizeFilter: { basePrecision: String(l?.lot ?? 0.00001), quotePrecision: '0.00000001', minOrderQty: String(l?.lot ?? 0.00001), maxOrderQty: '1000000' },
        priceFilter: { tickSize: '0.01' },
      };
    });
    return ok({ category, nextPageCursor: next, list });
  }

  // --- WS protocol ---
  function validTopic(cat: Category, topic: string): boolean {
    const sym = (s: string): boolean => spec.perps.some((p) => p.instrument === s);
    const [head, ...rest] = topic.split('.');
    const arg = rest.join('.');
    if (cat === 'option') return (head === 'publicTrade' && /^[A-Z]+$/.test(arg)) || (head === 'tickers' && /^[A-Z]+-\d{1,2}[A-Z]{3}\d{2}-[\d.]+-[CP](-USDT)?$/.test(arg));
    if (cat === 'linear') return (head === 'publicTrade' || head === 'tickers' || head === 'allLiquidation') && sym(arg);
    return head === 'publicTrade' && spec.spots.some((p) => p.instrument === arg);
  }

  function armIdle(c: Client): void {
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

  function onMessage(c: Client, text: string): void {
    const cat = categoryOf(c.path) ?? 'linear';
    let msg: { op?: unknown; args?: unknown; req_id?: unknown };
    try {
      msg = JSON.parse(text) as typeof msg;
    } catch {
      host.send(c, JSON.stringify({ success: false, ret_msg: 'error:invalid op', conn_id: c.id, op: '' }));
      return;
    }
    const reqId = typeof msg.req_id === 'string' ? msg.req_id : undefined;
    if (msg.op === 'ping') {
      armIdle(c);
      host.send(c, cat === 'option'
        ? JSON.stringify({ ...(reqId ? { req_id: reqId } : {}), op: 'pong', args: [String(Date.now())], conn_id: c.id })
        : JSON.stringify({ success: true, ret_msg: 'pong', conn_id: c.id, ...(reqId ? { req_id: reqId } : {}), op: 'ping' }));
      return;
    }
    if (msg.op === 'subscribe' || msg.op === 'unsubscribe') {
      const args = Array.isArray(msg.args) ? msg.args.filter((a): a is string => typeof a === 'string') : [];
      const good = args.filter((a) => validTopic(cat, a));
      const bad = args.filter((a) => !validTopic(cat, a));
      for (const a of good) {
        if (msg.op === 'subscribe') c.subs.add(`${cat}|${a}`);
        else c.subs.delete(`${cat}|${a}`);
      }
      if (cat === 'option') {
        host.send(c, JSON.stringify({ success: bad.length === 0, ret_msg: '', conn_id: c.id, ...(reqId ? { req_id: reqId } : {}), data: { failTopics: bad, successTopics: good }, type: 'COMMAND_RESP' }));
      } else {
        host.send(c, JSON.stringify({ success: bad.length === 0, ret_msg: bad.length ? `error:handler not found,topic:${bad.join(',')}` : '', conn_id: c.id, ...(reqId ? { req_id: reqId } : {}), op: msg.op }));
      }
      return;
    }
    host.send(c, JSON.stringify({ success: false, ret_msg: `error:invalid op ${String(msg.op)}`, conn_id: c.id, op: String(msg.op) }));
  }

  const host = new VenueHost('bybit', {
    wsPaths: (p) => categoryOf(p) !== null,
    rest: (path, q) => (path === '/v5/market/instruments-info' ? instrumentsRest(q) : null),
    onConnect: armIdle,
    onMessage,
  });
  const bound = await host.listen(port);
  const ws = (cat: Category): string => `ws://127.0.0.1:${bound}/v5/public/${cat}`;

  function malformed(kind: MalformedKind): number {
    const good = JSON.stringify({ id: 'publicTrade.BTC-1-1', topic: 'publicTrade.BTC', ts: Date.now(), type: 'snapshot', data: [{ i: 'x', T: Date.now(), p: '985', v: '0.01', S: 'Sell', s: 'BTC-28APR23-29500-C', BT: false }] });
    const frame = malformedFrame(kind, good, 'Internal Server Error', (g) => g.replace('"p":"985"', '"p":"nine"').replace('"S":"Sell"', '"S":42'));
    return host.sendAll(frame);
  }

  return venueServer('bybit', host, { rest: `http://127.0.0.1:${bound}`, ws: { option: ws('option'), linear: ws('linear'), spot: ws('spot') } }, publish, malformed);
}
