/**
 * The sandbox venues' recent-trades memory behind their REST recent-trades endpoints (the gap fill after a
 * reconnect reads them): every trade the model generated, delivered on a socket or not, as its wire object, newest
 * `capacity` kept (default 5,000 per venue server: minutes of sandbox flow; a venue's real look-back is bounded too). Queries
 * filter by a key (currency / category / family)
 * and time range, ascending or descending, with a row limit.
 */
export interface RecentTrade {
  /** ms UTC */
  readonly ts: number;
  /** What the endpoint filters on (e.g. Deribit `BTC:option`). */
  readonly key: string;
  /** The trade as the venue's REST endpoint returns it. */
  readonly wire: Record<string, unknown>;
}

export interface RecentQuery {
  readonly key: string;
  readonly fromMs?: number;
  readonly toMs?: number;
  readonly limit: number;
  readonly order: 'asc' | 'desc';
  /** Further filter on the wire row (e.g. Binance `fromId`). */
  readonly where?: (wire: Record<string, unknown>) => boolean;
}

export class RecentTrades {
  #rows: RecentTrade[] = [];
  constructor(private readonly capacity = 5_000) {}

  add(row: RecentTrade): void {
    this.#rows.push(row);
    if (this.#rows.length > this.capacity * 1.2) this.#rows = this.#rows.slice(this.#rows.length - this.capacity);
  }

  /** Matching trades (at most `limit`) and whether more match beyond them. */
  query(q: RecentQuery): { readonly rows: readonly Record<string, unknown>[]; readonly more: boolean } {
    const from = q.fromMs ?? -Infinity;
    const to = q.toMs ?? Infinity;
    const where = q.where;
    const hits = this.#rows.filter((r) => r.key === q.key && r.ts >= from && r.ts <= to && (where === undefined || where(r.wire)));
    if (q.order === 'desc') hits.reverse();
    return { rows: hits.slice(0, q.limit).map((r) => r.wire), more: hits.length > q.limit };
  }
}
