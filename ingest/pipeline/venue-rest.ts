import type { Instrument, MarketSymbol } from '../../schemas/events.ts';
import type { ParserContext, RestRequest, VenueConnectorSpec } from '../types.ts';
import { createParserContext, registerInstruments } from '../context.ts';
import type { RestPoller, RestRequest as RestInit } from '../ws/rest-poller.ts';
import type { Logger } from '../../ops/floor/log.ts';
import type { VenueSink } from './venue-sink.ts';

/** The fetch options of a listing / poll request (GET without a body unless the spec says otherwise). */
function requestInit(method: RestRequest['method'], headers: RestRequest['headers'], body: string | undefined): RestInit {
  if (method === undefined && headers === undefined && body === undefined) return {};
  return { method: method ?? 'GET', ...(headers ? { headers } : {}), ...(body !== undefined ? { body } : {}) };
}

/** The REST side of one venue: listing and poll requests (with pagination) through the rate-limited client. */
export class VenueRest {
  private readonly ctx: ParserContext;

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

  /** Runs one request (following pagination) and publishes what it yields, waiting out publisher backpressure. */
  async run(req: RestRequest): Promise<void> {
    let url: string | null = req.url;
    let body = req.body;
    for (let page = 0; url !== null && page < 1000; page++) {
      const res = await this.rest.request(url, requestInit(req.method, req.headers, body));
      this.ctx.receivedAt = res.receivedAt;
      const parsed = req.parse(res.body, this.ctx);
      if (!parsed.ok) {
        await this.sink.deadLetter('rest', req.id, parsed.reason, res.body.slice(0, 65_536), 'utf8', res.receivedAt);
        return;
      }
      registerInstruments(this.ctx, parsed.events);
      await this.sink.publish(parsed.events, res.receivedAt);
      url = parsed.nextUrl;
      if (parsed.nextBody !== undefined) body = parsed.nextBody;
    }
  }

  /** Every instrument listing of the symbols; a failed listing is logged, the others still count. */
  async loadInstruments(symbols: readonly MarketSymbol[]): Promise<void> {
    const results = await Promise.allSettled(this.spec.instrumentRequests(symbols).map((r) => this.run(r)));
    for (const r of results) if (r.status === 'rejected') this.log.warn({ err: (r.reason as Error).message }, 'instrument listing failed');
  }
}
