import { holdersData as buildHolders } from '#processors/analytics/reference-flows.ts';
import { notFound } from '../envelope/errors.ts';
import { readHolderPositions } from './read.ts';
import { responses } from '../envelope/envelope-schemas.ts';
import type { ApiInstance, AppContext } from '../types.ts';
import { HOLDER_CUSIPS, holdersData, holdersQuery } from './schemas.ts';

/** GET /v2/filings/holders: the latest quarter's 13F holders of a ticker (by CUSIP) with the change from the prior quarter. */
export async function holdersRoute(app: ApiInstance, ctx: AppContext): Promise<void> {
  app.get('/v2/filings/holders', {
    schema: {
      tags: ['filings'],
      summary: '13F holders',
      description:
        "Institutional holders from the latest quarter's Form 13F filings (shares held, value in whole dollars), largest first, with share_change from the prior quarter (null when the manager did not report the position then) and period_end. Keyed by CUSIP: MSTR 594972408, COIN 19260Q107, HOOD 770700102, IBIT 46438F101.",
      querystring: holdersQuery,
      response: responses(holdersData, { auth: true }),
    },
    handler: async (request, reply) => {
      const { ticker } = request.query;
      const limit = request.query.limit ?? 20;
      const cusip = HOLDER_CUSIPS[ticker];
      const { data } = await ctx.routeCache.answer(reply, 'filings_holders', [ticker, limit], async () => {
        const positions = await readHolderPositions(ctx.store, cusip);
        if (positions.length === 0) throw notFound(`no 13F filings hold ${ticker} (${cusip})`);
        return { data: buildHolders(ticker, cusip, positions, limit), meta: {} };
      });
      return ctx.respond.ok(request, data);
    },
  });
}
