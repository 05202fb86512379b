/**
 * The chaos harness's venue market: the sandbox in its own process (forked by main.ts through
 * sandbox/harness/sandbox-process.ts), real time (speed 1, so venue timestamps track the wall clock and REST gap fills find
 * the trades), serving only the venues named in argv[3] (comma-separated) and the symbols in argv[4] (comma-separated;
 * default BTCUSDT, ETHUSDT, SOLUSDT, HYPEUSDT). It writes its URLs as JSON to argv[2]
 * (the ingest processes read it through SANDBOX_URLS) and answers one reply per IPC command:
 *   -> { cmd: 'flood', perVenue, everyMs }   emit `perVenue` option trades on every served venue every `everyMs`
 *   -> { cmd: 'calm' }                       stop flooding
 *   -> { cmd: 'mark' }                       replies { mark: { venue: ledger length } } (generated and delivered)
 *   -> { cmd: 'ledger', mark, until? }       replies the option-trade ledger entries written after `mark` (and before `until`)
 *   -> { cmd: 'malformed', kind }            one malformed frame of `kind` to every client of every venue; replies { sent }
 *   -> { cmd: 'stop' }                       stops the servers and exits
 * On start it sends { urls }.
 */
import { writeFileSync } from 'node:fs';
import { startSandbox } from '#sandbox/sandbox.ts';
import type { SandboxVenue } from '#sandbox/market/venues.ts';
import type { MarketSymbol } from '#schemas/events.ts';
import type { LedgerEntry, TradeLedger } from '#sandbox/market/ledger.ts';
import type { MalformedKind } from '#sandbox/servers/types.ts';
import type { LedgerMark, LedgerSlice } from './ledger-compare.ts';

type Command =
  | { cmd: 'flood'; perVenue: number; everyMs: number }
  | { cmd: 'calm' }
  | { cmd: 'mark' }
  | { cmd: 'ledger'; mark: LedgerMark; until?: LedgerMark }
  | { cmd: 'malformed'; kind: MalformedKind }
  | { cmd: 'stop' };

const [urlsFile, venueList, symbolList] = process.argv.slice(2);
if (urlsFile === undefined || venueList === undefined) throw new Error('usage: sandbox-child.ts URLS_FILE VENUES [SYMBOLS]');
const venues = venueList.split(',') as SandboxVenue[];
const sb = await startSandbox({
  seed: 19,
  venues,
  symbols: (symbolList?.split(',') ?? ['BTCUSDT', 'ETHUSDT', 'SOLUSDT', 'HYPEUSDT']) as MarketSymbol[],
  speed: 1,
  model: { tickerIntervalMs: 10_000 },
});
writeFileSync(urlsFile, JSON.stringify(sb.urls));

const lengths = (l: TradeLedger): Record<string, number> => Object.fromEntries(venues.map((v) => [v, l.entries(v).length]));
const between = (
  l: TradeLedger,
  from: Readonly<Record<string, number>>,
  to?: Readonly<Record<string, number>>,
): Record<string, LedgerEntry[]> =>
  Object.fromEntries(
    venues.map((v) => [
      v,
      l
        .entries(v)
        .slice(from[v] ?? 0, to?.[v])
        .filter((e) => e.kind === 'option_trade'),
    ]),
  );

let flood: NodeJS.Timeout | null = null;
process.on('message', (raw: unknown) => {
  const m = raw as Command;
  if (m.cmd === 'flood') {
    flood ??= setInterval(() => {
      for (const v of venues) sb.emitTrades(v, m.perVenue);
    }, m.everyMs);
    process.send?.({ ok: true });
  } else if (m.cmd === 'calm') {
    if (flood) clearInterval(flood);
    flood = null;
    process.send?.({ ok: true });
  } else if (m.cmd === 'mark') {
    const mark: LedgerMark = { generated: lengths(sb.generated), delivered: lengths(sb.ledger) };
    process.send?.({ mark });
  } else if (m.cmd === 'ledger') {
    const slice: LedgerSlice = {
      generated: between(sb.generated, m.mark.generated, m.until?.generated),
      delivered: between(sb.ledger, m.mark.delivered, m.until?.delivered),
    };
    process.send?.({ slice });
  } else if (m.cmd === 'malformed') {
    const sent = venues.reduce((n, v) => n + sb.faults.malformed(v, m.kind), 0);
    process.send?.({ sent });
  } else if (m.cmd === 'stop') void sb.stop().then(() => process.exit(0));
});
process.send?.({ urls: sb.urls });
