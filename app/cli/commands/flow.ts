import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { CliCommand } from '../command.ts';
import { flowByStrikeOf, premiumTideOf, selectTrades, strikeHeatOf } from '#processors/analytics/trade-flow.ts';
import { SYMBOLS, type MarketSymbol, type OptionTrade } from '#schemas/events.ts';

const MODES = ['by-strike', 'strike-heat', 'premium-tide'] as const;

/** An option trade from a JSON line: `gex parse` output ({type: 'option_trade', event}) or a bare trade. */
function tradeOf(line: string): OptionTrade | null {
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch {
    return null;
  }
  if (typeof v !== 'object' || v === null) return null;
  const o = v as { type?: unknown; event?: unknown };
  const e = (o.type === 'option_trade' ? o.event : o.type === undefined ? v : null) as Partial<OptionTrade> | null;
  if (e === null || typeof e !== 'object') return null;
  const ok =
    typeof e.ts === 'number' &&
    typeof e.expiry === 'number' &&
    typeof e.strike === 'number' &&
    typeof e.size === 'number' &&
    typeof e.premiumUsd === 'number' &&
    typeof e.venue === 'string' &&
    typeof e.id === 'string' &&
    (e.side === 'buy' || e.side === 'sell') &&
    (e.optionType === 'call' || e.optionType === 'put');
  return ok ? (e as OptionTrade) : null;
}

function dataOf(mode: (typeof MODES)[number], symbol: MarketSymbol, trades: readonly OptionTrade[], now: number): object {
  const iso = (ms: number): string => new Date(ms).toISOString();
  if (mode === 'strike-heat')
    return { symbol, hours: 24, from: iso(now - 86_400_000), to: iso(now), min_premium_usd: 0, strikes: strikeHeatOf(trades, now) };
  if (mode === 'premium-tide') {
    const points = premiumTideOf(trades, now, '0dte');
    return {
      symbol,
      horizon: '0dte',
      venue: 'deribit',
      from: iso(points[0]?.t ?? now),
      to: iso(now),
      interval_minutes: 5,
      points: points.map((p) => ({ ...p, t: iso(p.t) })),
    };
  }
  return { symbol, expiries: [], min_premium_usd: 0, ...flowByStrikeOf(trades, now) };
}

/**
 * `gex flow [--trades FILE] [--by-strike|--strike-heat|--premium-tide] [--now T] [--symbol S]`: normalized option
 * trades as JSON lines (the output of `gex parse`; stdin without --trades) → the `data` object of
 * /v2/tape/flow-by-strike (with by_venue; the default), /v2/tape/strike-heat (24 h) or
 * /v2/options/premium-tide (0dte), computed with the routes' rules and no store.
 */
export const flowCommand: CliCommand = {
  name: 'flow',
  usage: 'flow [--trades FILE] [--by-strike|--strike-heat|--premium-tide] [--now T] [--symbol S]',
  summary: 'Print flow-by-strike, strike-heat or premium-tide JSON recomputed from option trades (JSON lines).',
  async run({ flags }) {
    const modes = MODES.filter((m) => flags.has(m));
    if (modes.length > 1) {
      process.stderr.write(`gex flow: choose one of --${MODES.join(', --')}\n`);
      return 2;
    }
    const symbol = (flags.get('symbol') ?? 'BTCUSDT') as MarketSymbol;
    if (!SYMBOLS.includes(symbol)) {
      process.stderr.write(`gex flow: --symbol must be one of ${SYMBOLS.join(', ')}\n`);
      return 2;
    }
    const nowText = flags.get('now');
    const now = nowText === undefined ? Date.now() : Date.parse(nowText);
    if (!Number.isFinite(now)) {
      process.stderr.write(`gex flow: --now must be an ISO-8601 instant, got '${nowText}'\n`);
      return 2;
    }
    const file = flags.get('trades');
    const input = file === undefined || file === '-' ? process.stdin : createReadStream(file, 'utf8');
    const all: OptionTrade[] = [];
    let skipped = 0;
    try {
      for await (const line of createInterface({ input, crlfDelay: Infinity })) {
        if (line.trim() === '') continue;
        const t = tradeOf(line);
        if (t === null) skipped++;
        else all.push(t);
      }
    } catch (err) {
      process.stderr.write(`gex flow: cannot read ${file}: ${(err as Error).message}\n`);
      return 2;
    }
    const trades = selectTrades(all, symbol, now);
    process.stdout.write(`${JSON.stringify(dataOf(modes[0] ?? 'by-strike', symbol, trades, now), null, 2)}\n`);
    process.stderr.write(
      `${JSON.stringify({ summary: { trades_read: all.length, trades_used: trades.length, lines_skipped: skipped } })}\n`,
    );
    return 0;
  },
};
