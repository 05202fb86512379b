import type { MarketEvent } from '#schemas/events.ts';
import { str, type RestReply } from './host.ts';
import { RecentTrades } from './recent-trades.ts';

/**
 * The Binance sandbox's option, perp and spot trade history (one memory per market, keyed by instrument) behind the public REST
 * trade endpoints the connector's gap fill
 * reads (USDⓈ-M futures and spot market-data docs):
 * - GET /fapi/v1/aggTrades?symbol=&fromId=&startTime=&endTime=&limit= (limit ≤ 1000, default 500): aggregate trades
 *   ascending; `fromId` (inclusive) or a time range (at most 1 h), else the most recent. Each: a, p, q, f, l, T, m.
 *   The sandbox prints one fill per aggregate, so `a` = `f` = `l` = the trade id.
 * - GET /api/v3/trades?symbol=&limit= (≤ 1000, default 500): the latest spot trades, oldest first. Each: id, price,
 *   qty, quoteQty, time, isBuyerMaker, isBestMatch.
 * - GET /eapi/v1/trades?symbol=&limit= (≤ 500, default 100): one option's latest trades, oldest first. Each: id (the
 *   stream's `t`), symbol, price, qty and quoteQty (negative for sells), side (-1 sell, 1 buy: the taker's), time.
 */
export class BinanceTradesRest {
  readonly #perps = new RecentTrades();
  readonly #spots = new RecentTrades();
  readonly #options = new RecentTrades();

  /** Remembers the option, perp and spot trades of a publish step (delivered to a socket or not). */
  record(events: readonly MarketEvent[]): void {
    for (const e of events) {
      if (e.type === 'option_trade') {
        const t = e.event;
        const sign = t.side === 'sell' ? '-' : '';
        this.#options.add({
          ts: t.ts,
          key: t.instrument,
          wire: {
            id: String(Number(t.tradeId)),
            symbol: t.instrument,
            price: t.price.toFixed(3),
            qty: `${sign}${str(t.size, 2)}`,
            quoteQty: `${sign}${str(t.price * t.size, 4)}`,
            side: t.side === 'sell' ? -1 : 1,
            time: t.ts,
          },
        });
      } else if (e.type === 'perp_trade') {
        const t = e.event;
        const id = Number(t.tradeId);
        this.#perps.add({
          ts: t.ts,
          key: t.instrument,
          wire: { a: id, p: str(t.price), q: str(t.size), f: id, l: id, T: t.ts, m: t.side === 'sell' },
        });
      } else if (e.type === 'spot_trade') {
        const t = e.event;
        this.#spots.add({
          ts: t.ts,
          key: t.instrument,
          wire: {
            id: Number(t.tradeId),
            price: str(t.price),
            qty: str(t.size),
            quoteQty: str(t.price * t.size),
            time: t.ts,
            isBuyerMaker: t.side === 'sell',
            isBestMatch: true,
          },
        });
      }
    }
  }

  /** The reply of a trade endpoint, or null when `path` is not one. */
  reply(path: string, q: URLSearchParams): RestReply | null {
    if (path !== '/fapi/v1/aggTrades' && path !== '/api/v3/trades' && path !== '/eapi/v1/trades') return null;
    const symbol = q.get('symbol');
    if (!symbol)
      return { status: 400, body: { code: -1102, msg: "Mandatory parameter 'symbol' was not sent, was empty/null, or malformed." } };
    if (path === '/eapi/v1/trades') {
      const n = Math.min(500, Math.max(1, Number(q.get('limit') ?? '100') || 100));
      return { status: 200, body: [...this.#options.query({ key: symbol, limit: n, order: 'desc' }).rows].reverse() };
    }
    const limit = Math.min(1000, Math.max(1, Number(q.get('limit') ?? '500') || 500));
    if (path === '/api/v3/trades')
      return { status: 200, body: [...this.#spots.query({ key: symbol, limit, order: 'desc' }).rows].reverse() };
    const key = symbol;
    const fromId = q.get('fromId');
    const start = q.get('startTime');
    const end = q.get('endTime');
    if (fromId !== null) {
      const first = Number(fromId);
      return { status: 200, body: this.#perps.query({ key, limit, order: 'asc', where: (w) => (w['a'] as number) >= first }).rows };
    }
    if (start !== null || end !== null) {
      const fromMs = start === null ? Number(end) - 3_600_000 : Number(start);
      const toMs = end === null ? fromMs + 3_600_000 : Number(end);
      if (toMs - fromMs > 3_600_000) return { status: 400, body: { code: -1127, msg: 'More than 1 hours between startTime and endTime.' } };
      return { status: 200, body: this.#perps.query({ key, fromMs, toMs, limit, order: 'asc' }).rows };
    }
    return { status: 200, body: [...this.#perps.query({ key, limit, order: 'desc' }).rows].reverse() };
  }
}
