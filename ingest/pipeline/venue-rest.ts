import { setTimeout as sleep } from 'node:timers/promises';
import type { Instrument, MarketEvent, MarketSymbol } from '#schemas/events.ts';
import { gapFillsTotal, gapFillTradesTotal } from '../transport/metrics.ts';
import { isTradeLike } from './recent-ids.ts';
import type { ParserContext, RestRequest, VenueConnectorSpec } from '../connector/types.ts';
import { createParserContext, registerInstruments } from '../connector/context.ts';
import type { RestPoller, RestRequest as RestInit } from '../transport/rest-poller.ts';
import type { Logger } from '#platform/log.ts';
import type { VenueSink } from './venue-sink.ts';

/** The fetch options of a listing / poll request (GET without a body unless the spec says otherwise). */
function requestInit(method: RestRequest['method'], headers: RestRequest['headers'], body: string | undefined): RestInit {
  if (method === undefined && headers === undefined && body === undefined) return {};
  return { method: method ?? 'GET', ...(headers ? { headers } : {}), ...(body !== undefined ? { body } : {}) };
}

/**
 * A gap fill starts this long before the connection's last frame: the outage is timed on our clock and trades on
 * the venue's, so a skew between them must not lose the first trades of the gap; the overlap's trades were already
 * published and the sink drops them by id.
 */
export const GAP_FILL_MARGIN_MS = 30_000;

/** The REST side of one venue: listing and poll requests (with pagination) through the rate-limited client. */
export class VenueRest {
  private readonly ctx: ParserContext;
  /** Gap fills run one after another (a paced fill keeps within its budget even when outages overlap). */
  #fills: Promise<unknown> = Promise.resolve();
  #stopped = false;

  constructor(
    private readonly spec: VenueConnectorSpec,
    private readonly rest: RestPoller,
    private readonly sink: VenueSink,
    instruments: Map<string, Instrument>,
    indexPrices: Map<MarketSymbol, number>,
    private readonly log: Logger,
  ) {
    this.ctx = createParserContext({ venue: spec.venue, connection: 'rest', instruments, indexPrices });
  }

  /**
   * Runs one request (following pagination) and publishes what it yields (only the events `keep` accepts), waiting
   * out publisher backpressure. Returns the number of trade-like events published (duplicates excluded).
   */
  async run(req: RestRequest, keep?: (e: MarketEvent) => boolean): Promise<number> {
    return (await this.#runPages(req, keep)).published;
  }

  /** `run`, also saying when its first page was sent (null when nothing was answered). */
  async #runPages(req: RestRequest, keep?: (e: MarketEvent) => boolean): Promise<{ published: number; sentAt: number | null }> {
    let sentAt: number | null = null;
    let url: string | null = req.url;
    let body = req.body;
    let published = 0;
    for (let page = 0; url !== null && page < 1000; page++) {
      const res = await this.rest.request(url, requestInit(req.method, req.headers, body));
      sentAt ??= res.sentAt;
      this.ctx.receivedAt = res.receivedAt;
      const parsed = req.parse(res.body, this.ctx);
      if (!parsed.ok) {
        await this.sink.deadLetter('rest', req.id, parsed.reason, res.body.slice(0, 65_536), 'utf8', res.receivedAt);
        return { published, sentAt };
      }
      registerInstruments(this.ctx, parsed.events);
      const r = this.sink.publishFresh(keep ? parsed.events.filter(keep) : parsed.events, res.receivedAt, keep === undefined);
      published += r.published;
      await r.pressure;
      url = parsed.nextUrl;
      if (parsed.nextBody !== undefined) body = parsed.nextBody;
    }
    return { published, sentAt };
  }

  /**
   * After a reconnect: the venue's recent trades from `sinceMs` (the connection's last frame) on, through the
   * spec's gap-fill requests for the connections that were down; only trades at or after `sinceMs` are kept and the
   * sink drops the ones already published. Returns the trades recovered; a failed request is logged and counted,
   * never thrown.
   */
  gapFill(symbols: readonly MarketSymbol[], sinceMs: number, untilMs: number, connections: ReadonlySet<string>): Promise<number> {
    const next = this.#fills.then(() => this.#fill(symbols, sinceMs, untilMs, connections));
    this.#fills = next.catch(() => undefined);
    return next;
  }

  /** No further gap-fill request starts (the venue is stopping). */
  stop(): void {
    this.#stopped = true;
  }

  async #fill(symbols: readonly MarketSymbol[], sinceMs: number, untilMs: number, connections: ReadonlySet<string>): Promise<number> {
    const gap = this.spec.gapFill;
    if (gap === undefined) return 0;
    const venue = this.spec.venue;
    // `sinceMs` is our clock, trade times the venue's: start GAP_FILL_MARGIN_MS earlier (duplicates are dropped).
    const from = sinceMs - GAP_FILL_MARGIN_MS;
    const trade = (e: MarketEvent): boolean => isTradeLike(e) && e.event.ts >= from;
    let recovered = 0;
    const scope = { connections, instruments: [...this.ctx.instruments.values()] };
    for (const req of gap.requests(symbols, from, untilMs, scope)) {
      if (this.#stopped) break;
      // The pace counts from when the request was sent (it may wait in the REST queue first).
      let sentAt = Date.now();
      try {
        const r = await this.#runPages(req, trade);
        recovered += r.published;
        sentAt = r.sentAt ?? sentAt;
        gapFillsTotal.inc({ venue, outcome: 'ok' });
      } catch (err) {
        gapFillsTotal.inc({ venue, outcome: 'failed' });
        this.log.warn({ err: (err as Error).message, request: req.id }, 'gap fill request failed');
      }
      const wait = (req.paceMs ?? 0) - (Date.now() - sentAt);
      if (wait > 0 && !this.#stopped) await sleep(wait);
    }
    if (recovered > 0) gapFillTradesTotal.inc({ venue }, recovered);
    this.log.info({ sinceMs, untilMs, connections: [...connections], recovered }, 'gap fill after reconnect');
    return recovered;
  }

  /** Every instrument listing of the symbols; a failed listing is logged, the others still count. */
  async loadInstruments(symbols: readonly MarketSymbol[]): Promise<void> {
    const results = await Promise.allSettled(this.spec.instrumentRequests(symbols).map((r) => this.run(r)));
    for (const r of results) if (r.status === 'rejected') this.log.warn({ err: (r.reason as Error).message }, 'instrument listing failed');
  }
}
