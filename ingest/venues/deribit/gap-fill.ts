/**
 * Deribit gap fill: public/get_last_trades_by_currency_and_time (public, no auth), per settlement currency and kind
 * (option, future: perpetuals are futures there), ascending from the outage's last frame, 1,000 trades a page; a
 * page with `has_more` continues from its last trade's timestamp (trades of that millisecond come again and the
 * sink drops them by id). The result's trades have the WebSocket trade shape, so the frame parser maps them.
 */
import type { MarketSymbol } from '#schemas/events.ts';
import { parseJson, isObj, obj, num } from '../../connector/parse-helpers.ts';
import type { GapFillSpec, RestParseResult, ParserContext } from '../../connector/types.ts';
import { parseDeribitTradeList } from './parse.ts';

export const GAP_FILL_PAGE = 1000;
/** Trades after the reopen are on the live stream; a little overlap costs only duplicates the sink drops. */
const OVERLAP_MS = 5_000;

/** Settlement currencies whose trades carry each symbol (SOL options are SOL_USDC linear, settled in USDC). */
const CURRENCIES: Readonly<Record<MarketSymbol, readonly string[]>> = {
  BTCUSDT: ['BTC'],
  ETHUSDT: ['ETH'],
  SOLUSDT: ['USDC'],
  HYPEUSDT: [],
};

export function tradesUrl(rest: string, currency: string, kind: 'option' | 'future', fromMs: number, toMs: number): string {
  const q = new URLSearchParams({
    currency,
    kind,
    start_timestamp: String(fromMs),
    end_timestamp: String(toMs),
    count: String(GAP_FILL_PAGE),
    sorting: 'asc',
  });
  return `${rest}/api/v2/public/get_last_trades_by_currency_and_time?${q}`;
}

/** One page: the trades as events, and the next page's URL when the venue says there are more. */
export function parseTradesPage(body: string, ctx: ParserContext, next: (fromMs: number) => string): RestParseResult {
  const msg = parseJson(body);
  if (!isObj(msg)) return { ok: false, reason: 'recent trades: body is not a JSON object' };
  const result = obj(msg, 'result');
  const trades = result === null ? null : result['trades'];
  if (result === null || !Array.isArray(trades)) return { ok: false, reason: 'recent trades: no result.trades array' };
  const parsed = parseDeribitTradeList(trades, ctx);
  if (!parsed.ok) return { ok: false, reason: `recent trades: ${parsed.reason}` };
  const last = trades.length > 0 ? trades[trades.length - 1] : undefined;
  const lastTs = isObj(last) ? num(last, 'timestamp') : null;
  return { ok: true, events: parsed.events, nextUrl: result['has_more'] === true && lastTs !== null ? next(lastTs) : null };
}

export function deribitGapFill(rest: string): GapFillSpec {
  return {
    covers: (connection) => connection === 'public',
    requests(symbols, sinceMs, untilMs) {
      const currencies = [...new Set(symbols.flatMap((s) => CURRENCIES[s]))];
      const to = untilMs + OVERLAP_MS;
      return currencies.flatMap((currency) =>
        (['option', 'future'] as const).map((kind) => {
          const next = (fromMs: number): string => tradesUrl(rest, currency, kind, fromMs, to);
          return {
            id: `deribit:gap-fill:${currency}:${kind}`,
            url: next(sinceMs),
            parse: (body: string, ctx: ParserContext) => parseTradesPage(body, ctx, next),
          };
        }),
      );
    },
  };
}
