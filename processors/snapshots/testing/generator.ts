/**
 * Deterministic market generator for the restart test: every event is a pure function of its timestamp, so a
 * restarted child can re-publish the interval it missed (as Kafka would have kept the venue feed) and produce
 * exactly the events a live run would have: one step every STEP_MS with tickers of 12 options (deribit and
 * okx), two index prices, two perp marks and one deribit trade. Live steps carry the wall-clock time of their
 * publication, replayed steps the times after the last stored event.
 */
import type { MarketEvent, OptionType, Venue } from '#schemas/events.ts';
import { DAY, TODAY, indexPrice, perpStats, ticker, trade } from './events.ts';

export const STEP_MS = 100;
export const GEN_EXPIRY = TODAY + 9 * DAY + 8 * 3600_000;

export interface GenInstrument {
  readonly venue: Venue;
  readonly name: string;
  readonly strike: number;
  readonly type: OptionType;
  /** Constant open interest, coins. */
  readonly oi: number;
}

export const GEN_INSTRUMENTS: readonly GenInstrument[] = (['deribit', 'okx'] as const).flatMap((venue, v) =>
  [95_000, 100_000, 105_000].flatMap((strike, s) =>
    (['call', 'put'] as const).map((type, c) => ({
      venue,
      name: `${venue === 'okx' ? 'BTC-USD' : 'BTC'}-GEN-${strike}-${type === 'call' ? 'C' : 'P'}`,
      strike,
      type,
      oi: 20 + 7 * v + 5 * s + 3 * c,
    })),
  ),
);

/** deribit instruments (the ones that trade). */
const TRADED = GEN_INSTRUMENTS.filter((i) => i.venue === 'deribit');

export function stepEvents(ts: number): MarketEvent[] {
  const k = Math.floor(ts / STEP_MS);
  const wave = Math.sin(ts / 7_000);
  const out: MarketEvent[] = GEN_INSTRUMENTS.map((i, n) => ({
    type: 'option_ticker',
    event: ticker({
      venue: i.venue,
      instrument: i.name,
      strike: i.strike,
      expiry: GEN_EXPIRY,
      type: i.type,
      oi: i.oi,
      iv: 0.5 + 0.02 * Math.sin(ts / 5_000 + n),
      forward: 100_000 + 400 * wave + (i.venue === 'okx' ? 15 : 0),
      ts,
    }),
  }));
  out.push(
    { type: 'index', event: indexPrice('deribit', 100_000 + 400 * wave, ts) },
    { type: 'index', event: indexPrice('okx', 100_010 + 400 * wave, ts) },
    { type: 'perp_stats', event: perpStats('deribit', 100_030 + 400 * wave, ts) },
    { type: 'perp_stats', event: perpStats('okx', 100_040 + 400 * wave, ts) },
  );
  const ins = TRADED[k % TRADED.length] as GenInstrument;
  out.push({
    type: 'option_trade',
    event: trade({
      venue: 'deribit',
      instrument: ins.name,
      strike: ins.strike,
      expiry: GEN_EXPIRY,
      type: ins.type,
      side: (k * 7919) % 5 < 2 ? 'sell' : 'buy',
      size: 1 + (k % 4),
      ts,
      id: `gen:${ts}`,
    }),
  });
  return out;
}
