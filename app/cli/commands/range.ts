import { readFileSync } from 'node:fs';
import type { CliCommand } from '../command.ts';
import { parseDvolHistory } from '#ingest/venues/deribit/dvol-history.ts';
import { createParserContext } from '#ingest/connector/context.ts';
import { computeRange } from '#processors/analytics/range.ts';
import { hourOpens, type Observation } from '#processors/analytics/range-calibration.ts';
import { SYMBOLS, type MarketSymbol } from '#schemas/events.ts';

type Kind = 'dvol' | 'price';

/**
 * Observations from one JSON line: `gex parse` output (`index` events of kind vol_index for DVOL, `perp_trade` /
 * `spot_trade` events for prices), a bare `{"ts": ms, "value": x}`, or (DVOL) a whole
 * public/get_volatility_index_data reply (each candle's open at its start, as the backfill stores it).
 */
function observationsOf(line: string, kind: Kind, currency: string): Observation[] | null {
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch {
    return null;
  }
  if (typeof v !== 'object' || v === null) return null;
  const o = v as {
    type?: unknown;
    event?: { ts?: unknown; value?: unknown; price?: unknown; kind?: unknown };
    ts?: unknown;
    value?: unknown;
    result?: unknown;
  };
  if (kind === 'dvol' && o.result !== undefined) {
    const r = parseDvolHistory(line, createParserContext({ venue: 'deribit', connection: 'cli', receivedAt: 0 }), '', currency);
    return r.ok ? r.events.flatMap((e) => (e.type === 'index' ? [{ ts: e.event.ts, value: e.event.value }] : [])) : null;
  }
  const e = o.event;
  const obs =
    o.type === undefined
      ? { ts: o.ts, value: o.value }
      : kind === 'dvol' && o.type === 'index' && e?.kind === 'vol_index'
        ? { ts: e.ts, value: e.value }
        : kind === 'price' && (o.type === 'perp_trade' || o.type === 'spot_trade')
          ? { ts: e?.ts, value: e?.price }
          : null;
  return obs !== null && typeof obs.ts === 'number' && typeof obs.value === 'number' ? [{ ts: obs.ts, value: obs.value }] : null;
}

function readObservations(file: string, kind: Kind, currency: string, now: number): { obs: Observation[]; skipped: number } {
  const obs: Observation[] = [];
  let skipped = 0;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    const got = observationsOf(line, kind, currency);
    if (got === null) skipped++;
    else obs.push(...got.filter((x) => x.ts <= now));
  }
  return { obs, skipped };
}

/**
 * `gex range --dvol FILE --prices FILE [--now T] [--symbol S] [--past]`: the `data` object of /v2/options/range
 * recomputed from files with the route's rules (hour opens, latest values, calibration) and no store.
 */
export const rangeCommand: CliCommand = {
  name: 'range',
  usage: 'range --dvol FILE --prices FILE [--now T] [--symbol BTCUSDT|ETHUSDT] [--past]',
  summary: 'Print /v2/options/range JSON recomputed from DVOL and price files (JSON lines or a DVOL REST reply).',
  async run({ flags }) {
    const dvolFile = flags.get('dvol');
    const priceFile = flags.get('prices');
    const symbol = (flags.get('symbol') ?? 'BTCUSDT') as MarketSymbol;
    const nowText = flags.get('now');
    const now = nowText === undefined ? Date.now() : Date.parse(nowText);
    const problem =
      dvolFile === undefined || priceFile === undefined
        ? '--dvol FILE and --prices FILE are required'
        : !SYMBOLS.includes(symbol) || (symbol !== 'BTCUSDT' && symbol !== 'ETHUSDT')
          ? '--symbol must be BTCUSDT or ETHUSDT'
          : !Number.isFinite(now)
            ? `--now must be an ISO-8601 instant, got '${nowText}'`
            : null;
    if (problem !== null || dvolFile === undefined || priceFile === undefined) {
      process.stderr.write(`gex range: ${problem ?? ''}\n`);
      return 2;
    }
    const currency = symbol.slice(0, 3);
    try {
      const d = readObservations(dvolFile, 'dvol', currency, now);
      const p = readObservations(priceFile, 'price', currency, now);
      const dv = hourOpens(d.obs);
      const px = hourOpens(p.obs);
      const data = computeRange({
        now,
        spot: px.last,
        dvol: dv.last,
        prices: px.points,
        dvols: dv.points,
        historyFloor: null,
        includePast: flags.has('past'),
      });
      process.stdout.write(`${JSON.stringify({ symbol, ...data }, null, 2)}\n`);
      process.stderr.write(
        `${JSON.stringify({ summary: { dvol_points: d.obs.length, price_points: p.obs.length, lines_skipped: d.skipped + p.skipped } })}\n`,
      );
      return 0;
    } catch (err) {
      process.stderr.write(`gex range: ${(err as Error).message}\n`);
      return 2;
    }
  },
};
