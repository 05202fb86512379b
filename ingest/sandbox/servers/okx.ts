import type { MarketEvent, MarketSymbol } from '../../../schemas/events.ts';
import { VENUE_SPECS } from '../market/venues.ts';
import { VenueHost, groupBy, str, type Client, type RestReply, venueServer, malformedFrame } from './host.ts';
import type { MalformedKind, VenueServer, VenueServerContext } from './types.ts';

/**
 * OKX v5 public WebSocket (/ws/v5/public) and REST /api/v5/public/instruments, /api/v5/public/open-interest.
 * Channels: option-trades (instFamily), opt-summary (instFamily), open-interest / mark-price / trades /
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

export async function startOkxServer(ctx: VenueServerContext, port = 0): Promise<VenueServer> {
  const { market, delivered, timings } = ctx;
  const family = (s: MarketSymbol): string => `${BASE_OF(s)}-USD`;
  const optSeries = (s: MarketSymbol) => spec.options.find((o) => o.symbol === s);
  const perpOf = (inst: string) => [...spec.perps, ...spec.spots].find((p) => p.instrument === inst);
  const contracts = (coins: number, size: number): string => str(coins / size, 8);
  /** Subscription key of an arg; the push echoes the arg as subscribed. */
  const keyOf = (channel: string, sel: string): string => `${channel}|${sel}`;
  const push = (key: string, data: unknown[]): number =>
    host.broadcast(key, () => JSON.stringify({ arg: JSON.parse(argJson.get(key) ?? '{}') as unknown, data }));
  const argJson = new Map<string, string>();

  function publish(events: readonly MarketEvent[]): void {
    const sent: MarketEvent[] = [];
    const trades = events.filter((e) => e.type === 'option_trade');
    for (const [fam, list] of groupBy(trades, (e) => (e.type === 'option_trade' ? family(e.event.symbol) : null))) {
      const data = list.map((e) => {
        if (e.type !== 'option_trade') return null;
        const t = e.event;
        const s = optSeries(t.symbol);
        const q = market.optionQuote('okx', t.instrument);
        return {
          fillVol: str(t.iv ?? 0, 10), fwdPx: str(t.underlyingPrice ?? 0, 8), idxPx: str(t.indexPrice ?? 0, 4), instFamily: fam,
          instId: t.instrument, markPx: str(q?.markVenue ?? t.price, 10), optType: t.optionType === 'call' ? 'C' : 'P',
          px: str(t.price, 8), side: t.side, sz: contracts(t.size, s?.contractSize ?? 1), tradeId: t.tradeId, ts: String(t.ts),
        };
      });
      if (push(keyOf('option-trades', fam), data) > 0) sent.push(...list);
    }
    for (const [inst, list] of groupBy(events, (e) => (e.type === 'perp_trade' || e.type === 'spot_trade' ? e.event.instrument : null))) {
      const l = perpOf(inst);
      const data = list.map((e) => {
        if (e.type !== 'perp_trade' && e.type !== 'spot_trade') return null;
        const t = e.event;
        return { instId: inst, tradeId: t.tradeId, px: str(t.price), sz: contracts(t.size, l?.contractSize ?? 1), side: t.side, ts: String(t.ts), count: '1' };
      });
      if (push(keyOf('trades', inst), data) > 0) sent.push(...list);
    }
    const liqs = events.filter((e) => e.type === 'liquidation');
    if (liqs.length > 0) {
      const data = liqs.map((e) => {
        if (e.type !== 'liquidation') return null;
        const l = e.event;
        const p = perpOf(l.instrument);
        const uly = l.instrument.replace('-SWAP', '');
        return {
          details: [{ bkLoss: '0', bkPx: str(l.price), ccy: '', posSide: l.side, side: l.side === 'long' ? 'sell' : 'buy', sz: contracts(l.size, p?.contractSize ?? 1), ts: String(l.ts) }],
          instFamily: uly, instId: l.instrument, instType: 'SWAP', uly,
        };
      });
      if (push(keyOf('liquidation-orders', 'SWAP'), data) > 0) sent.push(...liqs);
    }
    const tickers = events.filter((e) => e.type === 'option_ticker');
    for (const [fam, list] of groupBy(tickers, (e) => (e.type === 'option_ticker' ? family(e.event.symbol) : null))) {
      push(keyOf('opt-summary', fam), list.map((e) => {
        if (e.type !== 'option_ticker') return null;
        const t = e.event;
        const f = t.underlyingPrice ?? 1;
        const markCoin = (t.markPrice ?? 0) / (t.indexPrice ?? 1);
        return {
          instType: 'OPTION', instId: t.instrument, uly: fam, delta: str((t.delta ?? 0) - markCoin, 10), gamma: str((t.gamma ?? 0) * f, 10),
          vega: str((t.vega ?? 0) / f, 10), theta: str((t.theta ?? 0) / f, 10), lever: str(markCoin > 0 ? 1 / markCoin : 0, 6),
          markVol: str(t.markIv ?? 0, 10), bidVol: str(t.bidIv ?? 0, 10), askVol: str(t.askIv ?? 0, 10), realVol: '',
          deltaBS: str(t.delta ?? 0, 10), gammaBS: str(t.gamma ?? 0, 12), thetaBS: str(t.theta ?? 0, 10), vegaBS: str(t.vega ?? 0, 10),
          fwdPx: str(f, 8), ts: String(t.ts),
        };
      }));
      for (const e of list) {
        if (e.type !== 'option_ticker') continue;
        const t = e.event;
        const s = optSeries(t.symbol);
        push(keyOf('open-interest', t.instrument), [{ instId: t.instrument, instType: 'OPTION', oi: contracts(t.openInterest ?? 0, s?.contractSize ?? 1), oiCcy: str(t.openInterest ?? 0), ts: String(t.ts) }]);
        push(keyOf('mark-price', t.instrument), [{ instId: t.instrument, instType: 'OPTION', markPx: str((t.markPrice ?? 0) / (t.indexPrice ?? 1), 10), ts: String(t.ts) }]);
      }
    }
    for (const e of events) {
      if (e.type === 'perp_stats') {
        const s = e.event;
        const p = perpOf(s.instrument);
        const ts = String(s.ts);
        push(keyOf('open-interest', s.instrument), [{ instId: s.instrument, instType: 'SWAP', oi: contracts(s.openInterest ?? 0, p?.contractSize ?? 1), oiCcy: str(s.openInterest ?? 0), oiUsd: str(s.openInterestUsd ?? 0, 2), ts }]);
        push(keyOf('mark-price', s.instrument), [{ instId: s.instrument, instType: 'SWAP', markPx: str(s.markPrice ?? 0), ts }]);
        push(keyOf('funding-rate', s.instrument), [{
          fundingRate: str(s.fundingRate ?? 0, 10), fundingTime: String(s.nextFundingTime ?? ''), instId: s.instrument, instType: 'SWAP',
          method: 'current_period', nextFundingRate: '', nextFundingTime: String((s.nextFundingTime ?? 0) + 8 * 3600 * 1000), ts,
        }]);
      } else if (e.type === 'index') {
        const i = e.event;
        push(keyOf('index-tickers', i.name), [{ instId: i.name, idxPx: str(i.value), open24h: str(i.value), high24h: str(i.value), low24h: str(i.value), sodUtc0: str(i.value), sodUtc8: str(i.value), ts: String(i.ts) }]);
      }
    }
    delivered.recordEvents(sent);
  }

  // --- REST ---
  function instrumentsRest(q: URLSearchParams): RestReply {
    const instType = q.get('instType');
    const fam = q.get('instFamily') ?? q.get('uly');
    const instId = q.get('instId');
    const err = (code: string, msg: string): RestReply => ({ status: 200, body: { code, msg, data: [] } });
    if (instType !== 'OPTION' && instType !== 'SWAP' && instType !== 'SPOT') return err('51000', 'Parameter instType error');
    if (instType === 'OPTION' && !fam) return err('51000', 'Parameter instFamily error');
    const kind = instType === 'OPTION' ? 'option' : instType === 'SWAP' ? 'perp' : 'spot';
    const data = market
      .instruments('okx')
      .filter((i) => i.kind === kind && (!instId || i.instrument === instId))
      .filter((i) => !fam || (kind === 'option' ? family(i.symbol) === fam : i.instrument.startsWith(`${fam}-`) || i.instrument === fam))
      .map((i) => {
        const base = BASE_OF(i.symbol);
        if (i.kind === 'option') {
          return {
            instType: 'OPTION', instId: i.instrument, uly: family(i.symbol), instFamily: family(i.symbol), baseCcy: '', quoteCcy: '', settleCcy: base,
            ctVal: '1', ctMult: String(i.contractSize), ctValCcy: base, optType: i.optionType === 'call' ? 'C' : 'P', stk: String(i.strike),
            listTime: String(i.ts), expTime: String(i.expiry), lever: '', tickSz: '0.0001', lotSz: '1', minSz: '1', ctType: '', state: 'live', ruleType: 'normal',
          };
        }
        if (i.kind === 'perp') {
          return {
            instType: 'SWAP', instId: i.instrument, uly: `${base}-USDT`, instFamily: `${base}-USDT`, baseCcy: '', quoteCcy: '', settleCcy: 'USDT',
            ctVal: String(i.contractSize), ctMult: '1', ctValCcy: base, optType: '', stk: '', listTime: String(i.ts), expTime: '', lever: '100',
            tickSz: '0.1', lotSz: '1', minSz: '1', ctType: 'linear', state: 'live', ruleType: 'normal',
          };
        }
        return { instType: 'SPOT', instId: i.instrument, uly: '', instFamily: '', baseCcy: base, quoteCcy: 'USDT', settleCcy: '', ctVal: '', ctMult: '', ctValCcy: '', listTime: String(i.ts), expTime: '', tickSz: '0.01', lotSz: '0.00000001', minSz: '0.00001', state: 'live', ruleType: 'normal' };
      });
    return { status: 200, body: { code: '0', msg: '', data } };
  }

  /** `/api/v5/public/open-interest?instType=OPTION&instFamily=BTC-USD` (or SWAP, optional instId): oi contracts, oiCcy coins. */
  function openInterestRest(q: URLSearchParams): RestReply {
    const instType = q.get('instType');
    const fam = q.get('instFamily') ?? q.get('uly');
    const instId = q.get('instId');
    const err = (code: string, msg: string): RestReply => ({ status: 200, body: { code, msg, data: [] } });
    const ts = String(market.now);
    if (instType === 'OPTION') {
      if (!fam && !instId) return err('51000', 'Parameter instFamily error');
      const data = market
        .chains('okx')
        .filter((c) => !fam || family(c.spec.symbol) === fam)
        .flatMap((c) => c.contracts.map((k) => ({ k, c })))
        .filter(({ k }) => !instId || k.instrument === instId)
        .map(({ k, c }) => {
          const oiUsd = k.oi * market.index(c.spec.symbol);
          return { instType: 'OPTION', instId: k.instrument, oi: contracts(k.oi, c.spec.contractSize), oiCcy: str(k.oi), oiUsd: str(oiUsd, 2), ts };
        });
      return { status: 200, body: { code: '0', msg: '', data } };
    }
    if (instType === 'SWAP') {
      const data = market
        .perps('okx')
        .filter((p) => (!instId || p.spec.instrument === instId) && (!fam || p.spec.instrument.startsWith(`${fam}-`)))
        .map((p) => ({ instType: 'SWAP', instId: p.spec.instrument, oi: contracts(p.oi, p.spec.contractSize), oiCcy: str(p.oi), oiUsd: str(p.oi * market.index(p.spec.symbol), 2), ts }));
      return { status: 200, body: { code: '0', msg: '', data } };
    }
    return err('51000', 'Parameter instType error');
  }

  // --- WS protocol ---
  function selector(a: Arg): string | null {
    const ch = a.channel;
    const s = (x: unknown): string | null => (typeof x === 'string' && x.length > 0 ? x : null);
    switch (ch) {
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

  function onMessage(c: Client, text: string): void {
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
    const args = Array.isArray(msg.args) ? (msg.args as Arg[]) : [];
    for (const a of args) {
      const sel = a && typeof a === 'object' ? selector(a) : null;
      if (!sel || typeof a.channel !== 'string') {
        host.send(c, JSON.stringify({ event: 'error', code: '60018', msg: `Wrong URL or channel:${String(a?.channel)}, instId or instFamily doesn't exist.`, connId: c.id }));
        continue;
      }
      const key = keyOf(a.channel, sel);
      argJson.set(key, JSON.stringify(a));
      if (msg.op === 'subscribe') c.subs.add(key);
      else c.subs.delete(key);
      host.send(c, JSON.stringify({ ...(msg.id !== undefined ? { id: msg.id } : {}), event: msg.op, arg: a, connId: c.id }));
    }
  }

  const host = new VenueHost('okx', {
    wsPaths: (p) => p === '/ws/v5/public',
    rest: (path, q) => (path === '/api/v5/public/instruments' ? instrumentsRest(q) : path === '/api/v5/public/open-interest' ? openInterestRest(q) : null),
    onConnect: (c) => {
      c.timers.push(setTimeout(() => {
        if (c.subs.size === 0) c.ws.close(4004, 'No data received in 30s.');
      }, timings.okxNoSubscriptionMs));
    },
    onMessage,
  });
  const bound = await host.listen(port);

  function malformed(kind: MalformedKind): number {
    const good = JSON.stringify({ arg: { channel: 'option-trades', instType: 'OPTION', instFamily: 'BTC-USD' }, data: [{ instId: 'BTC-USD-230224-18000-C', px: '0.045', side: 'sell', sz: '2', tradeId: '38', ts: String(Date.now()), optType: 'C' }] });
    const frame = malformedFrame(kind, good, 'Service Unavailable', (g) => g.replace('"px":"0.045"', '"px":"zero"').replace('"sz":"2"', '"sz":null'));
    return host.sendAll(frame);
  }

  return venueServer('okx', host, { rest: `http://127.0.0.1:${bound}`, ws: { public: `ws://127.0.0.1:${bound}/ws/v5/public` } }, publish, malformed);
}
