/**
 * The sandbox market in its own process for the backpressure test (test/e2e/ingest-backpressure.test.ts): the
 * ingest process under test then holds only its own memory, while the frames a paused connector leaves unread
 * wait in this process's socket buffers, as they would at a venue. Driven over the fork IPC channel:
 *   -> { cmd: 'flood', perVenue, everyMs }  emit `perVenue` option trades on every venue every `everyMs`
 *   -> { cmd: 'calm' }                      stop flooding; replies { delivered }
 *   -> { cmd: 'ledger' }                    replies { ids: { venue: option-trade ids written to a socket } }
 *   -> { cmd: 'stop' }                      stops the servers and exits
 * On start it sends { urls }.
 */
import { startSandbox } from '#sandbox/sandbox.ts';
import { SANDBOX_VENUES } from '#sandbox/market/venues.ts';

type Command = { cmd: 'flood'; perVenue: number; everyMs: number } | { cmd: 'calm' } | { cmd: 'ledger' } | { cmd: 'stop' };

const sb = await startSandbox({
  seed: 7,
  symbols: ['BTCUSDT', 'ETHUSDT', 'SOLUSDT', 'HYPEUSDT'],
  speed: 0,
  model: { tickerIntervalMs: 3_600_000 },
  // Derive's server pings every 30 s and drops a client whose pong is over 60 s old: a 30 s pause can cross two
  // ping ticks, and the drop would discard frames already counted as written. Pinging every 2 min keeps the
  // comparison exact (the pause itself is the subject here, not the venue's slow-consumer policy).
  timings: { derivePingIntervalMs: 120_000 },
});
const delivered = (): number => SANDBOX_VENUES.reduce((n, v) => n + sb.ledger.count(v, 'option_trade'), 0);
let flood: NodeJS.Timeout | null = null;

process.on('message', (raw: unknown) => {
  const m = raw as Command;
  if (m.cmd === 'flood') {
    flood ??= setInterval(() => {
      for (const v of SANDBOX_VENUES) sb.emitTrades(v, m.perVenue);
    }, m.everyMs);
    process.send?.({ delivered: delivered() });
  } else if (m.cmd === 'calm') {
    if (flood) clearInterval(flood);
    flood = null;
    process.send?.({ delivered: delivered() });
  } else if (m.cmd === 'ledger') {
    process.send?.({ ids: Object.fromEntries(SANDBOX_VENUES.map((v) => [v, sb.ledger.ids(v, 'option_trade')])) });
  } else if (m.cmd === 'stop') void sb.stop().then(() => process.exit(0));
});
process.send?.({ urls: sb.urls });
