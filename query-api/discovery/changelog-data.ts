/** Release history of the /v2 API, newest first (spec "Versioning"). B = breaking. */

export interface Release {
  readonly version: string;
  readonly released_at: string;
  readonly summary: string;
  readonly breaking: boolean;
  readonly changes: readonly string[];
}

const R = (version: string, released_at: string, breaking: boolean, summary: string): Release => ({
  version,
  released_at,
  summary,
  breaking,
  changes: summary
    .split(';')
    .map((c) => c.trim())
    .filter((c) => c.length > 0),
});

export const RELEASES: readonly Release[] = [
  R(
    '2.14.1',
    '2026-11-27',
    false,
    'WebSocket `tape` channels under overload: a trade that waited over 2 s in the server for its fan-out is not sent and its channel `seq` still advances, so a subscriber sees the gap as a seq jump and reads the missed trades from `/v2/tape` (published in /v2/meta and the AsyncAPI document)',
  ),
  R(
    '2.14.0',
    '2026-11-26',
    true,
    'put/call ratio per-venue block renamed `exchanges` -> `exchange_breakdown` (the contract name); put/call ratio `granularity=daily` is a real daily series (the last 5-minute point of each UTC day) reported as `meta.extra.granularity` = `daily`, never `intraday-fallback`; market `hours` 1-8760 on every series, the 30,000-point cap on candles only; chain rows carry `trade_count` and `notional_volume` (premium paid in USD, trades of the 24 h before the chain instant); `meta.extra.aggregation` on aggregating routes (vocabulary in /v2/meta); about 30 s server cache with X-Cache and Age on put/call ratio, range, premium tide, strike heat, ETF flows and 13F holders; plan history window applied to ETF flows and COT summary and instrument; `/v2/gex/level-study`: hold rates of hvl, call resistance and put support against a mirror placebo and realized volatility per gamma regime, reproducible with `gex study levels`; HTTPS with TLS_CERT_FILE and TLS_KEY_FILE; OpenAPI documents the docs pages as text/html and range bands as fixed-size number arrays; `/v2/replay`: the stored history of feed channels (tape, levels, chain) over a window merged in time order as NDJSON, levels lines equal to the as_of answers, also written by `gex replay`; WebSocket `public/replay` with speed (max or a real-time multiple), pause, resume and stop, a `replay_done` message, one replay per connection and a per-plan concurrent replay cap shared with `/v2/replay` (published in /v2/meta `websocket.replay` and the AsyncAPI document)',
  ),
  R(
    '2.13.0',
    '2026-10-11',
    false,
    'constant-maturity vol, chain over WebSocket, strike ladder, calibrated range, COT, filings; fixed iv smile and premium tide 0dte; two venues added to chain',
  ),
  R('2.12.0', '2026-10-01', true, 'greek exposures in dollars, one unit per greek; vanna sign; one gamma flip and wall rule'),
  R('2.11.0', '2026-09-07', true, 'faster dealer flow; greek surfaces `exchange_breakdown` behind `include`'),
  R('2.10.1', '2026-09-01', false, '`notional_volume` means premium paid on all symbols'),
  R('2.10.0', '2026-09-01', true, 'chain volume covers eight venues on BTC and ETH; `trade_count` populated; bid/ask fixed'),
  R('2.9.0', '2026-08-30', false, '`include=by_venue` and `venue_disagreement` on flow by strike'),
  R('2.8.1', '2026-08-30', true, 'smaller responses; put/call ratio honours `days`; `exchange_breakdown` behind `include`'),
  R('2.8.0', '2026-08-28', true, 'point-in-time `as_of` on nine endpoints'),
  R('2.7.1', '2026-08-26', false, 'venue-book spread sort order'),
  R('2.7.0', '2026-08-24', false, 'market data, ETF flows, market bundle'),
  R('2.6.11', '2026-08-24', false, 'historical depth becomes an entitlement (reported only)'),
  R('2.6.6', '2026-08-21', false, '429 sends `Retry-After`'),
  R('2.6.2', '2026-08-18', true, 'OI by expiry consistency; raw `exchange_breakdown` removed'),
  R('2.6.0', '2026-08-18', true, 'WebSocket GEX levels serve `flow`'),
  R('2.5.2', '2026-08-17', false, 'three venues; flow by strike'),
  R('2.5.0', '2026-08-04', true, 'entitlement failures return 403; monthly quotas; plan ladder'),
  R('2.4.0', '2026-07-31', false, '`derive` venue'),
  R('2.3.0', '2026-07-30', false, 'dealer, gamma, delta flow; tape analytics; WebSocket GEX levels'),
  R('2.2.0', '2026-07-30', true, 'default positioning becomes `flow`'),
];

export const CURRENT_RELEASE = '2.14.1';

/**
 * v1 still serves data v2 excludes (macro) and v1 keys keep working, so it is not sunset; v2 is the current
 * generation and new features land only there, so v1 is `deprecated`.
 */
export const V1_STATUS = 'deprecated' as const;
