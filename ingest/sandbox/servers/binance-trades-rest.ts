import type { MarketEvent } from '../../../schemas/events.ts';
import { str, type RestReply } from './host.ts';
import { RecentTrades } from './recent-trades.ts';

/**
 * The Binance sandbox's perp and spot trade history behind the public REST trade endpoints the connector's gap fill
 * reads (USDⓈ-M futures and spot market-data docs):
 * - GET /fapi/v1/aggTrades?symbol=&fromId=&startTime=&endTime=&limit= (limit ≤ 1000, default 500): aggregate trades
 *   ascending; `fromId` (inclusive) or a time range (at most 1 h), else the most recent. Each: a, p, q, f, l, T, m.
 *   The sandbox prints one fill per aggregate, so `a` = `f` = `l` = the trade id.
 * - GET /api/v3/trades?symbol=&limit= (≤ 1000, default 500): the latest spot trades, oldest first. Each: id, price,
 *   qty, quoteQty, time, isBuyerMaker, isBestMatch.
 */
export class BinanceTradesRest {
  readonly #recent = new RecentTrades(20_000);

  /** Remembers the perp and spot trades of a publish step (delivered to a socket or not). */
  record(events: readonly MarketEvent[]): void {
    for (const e of events) {
      if (e.type === 'perp_trade') {
        const t = e.event;
        const id = Number(t.tradeId);
        this.#recent.add({ ts: t.ts, key: `fut|${t.instrument}`, wire: { a: id, p: str(t.price), q: str(t.size), f: id, l: id, T: t.ts, m: t.side === 'sell' } });
      } else if (e.type === 'spot_trade') {
        const t = e.event;
        this.#recent.add({ ts: t.ts, key: `spot|${t.instrument}`, wire: { id: Number(t.tradeId), price: str(t.price), qty: str(t.size), quoteQty: str(t.price * t.size), time: t.ts, isBuyerMaker: t.side === 'sell', isBestMatch: true } });
      }
    }
  }

  /** The reply of a trade endpoint, or null when `path` is not one. */
  reply(path: string, q: URLSearchParams): RestReply | null {
    if (path !== '/fapi/v1/aggTrades' && path !== '/api/v3/trades') return null;
    const symbol = q.get('symbol');
    if (!symbol) return { status: 400, body: { code: -1102, msg: "Mandatory parameter 'symbol' was not sent, was empty/null, or malformed." } };
    const limit = Math.min(1000, Math.max(1, Number(q.get('limit') ?? '500') || 500));
    if (path === '/api/v3/trades') return { status: 200, body: [...this.#recent.query({ key: `spot|${symbol}`, limit, order: 'desc' }).rows].reverse() };
    const key = `fut|${symbol}`;
    const fromId = q.get('fromId');
    const start = q.get('startTime');
    const end = q.get('endTime');
    if (fromId !== null) return { status: 200, body: this.#recent.query({ key, limit, order: 'asc', where: (w) => (w['a'] as number) >= Number(fromId) }).rows };
    if (start !== null || end !== null) {
      const fromMs = start === null ? Number(end) - 3_600_000 : Number(start);
      const toMs = end === null ? fromMs + 3_600_000 : Number(end);
      if (toMs - fromMs > 3_600_000) return { status: 400, body: { code: -1127, msg: 'More than 1 hours between startTime and endTime.' } };
      return { status: 200, body: this.#recent.query({ key, fromMs, toMs, limit, order: 'asc' }).rows };
    }
    return { status: 200, body: [...this.#recent.query({ key, limit, order: 'desc' }).rows].reverse() };
  }
}
