/**
 * The sandbox market as a separate process, the load generator of the ingest end-to-end bench (as autocannon is
 * for the API bench): the pipeline under test then has the process to itself. Driven over the fork IPC channel:
 *   -> { cmd: 'emit', perVenue }      emit `perVenue` option trades on every venue; replies { delivered }
 *   -> { cmd: 'prepare', perVenue, bursts }  generates `bursts` x `perVenue` option trades per venue with every
 *                                      venue's frames held back (not written yet); replies { delivered }
 *   -> { cmd: 'release' }             writes the held frames; replies { delivered, frames } once written
 *   -> { cmd: 'delivered' }           replies { delivered } (option trades written to, or held for, a socket)
 *   -> { cmd: 'stop' }                stops the servers and exits
 * Every reply also carries `cpu`: the CPU seconds this process has used so far.
 * On start it sends { urls } (the sandbox servers' URLs per venue).
 */
import { startSandbox } from '#sandbox/sandbox.ts';
import { SANDBOX_VENUES } from '#sandbox/market/venues.ts';

type Command =
  | { cmd: 'emit'; perVenue: number }
  | { cmd: 'prepare'; perVenue: number; bursts: number }
  | { cmd: 'release' }
  | { cmd: 'delivered' }
  | { cmd: 'stop' };

const sb = await startSandbox({
  seed: 99,
  symbols: ['BTCUSDT', 'ETHUSDT', 'SOLUSDT', 'HYPEUSDT'],
  speed: 0,
  model: { tickerIntervalMs: 3_600_000 },
});
const delivered = (): number => SANDBOX_VENUES.reduce((n, v) => n + sb.ledger.count(v, 'option_trade'), 0);
/** CPU seconds this process has used (user + system). */
const cpuSeconds = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};
const send = (m: object): void => {
  process.send?.({ ...m, cpu: cpuSeconds() });
};

process.on('message', (raw: unknown) => {
  const m = raw as Command;
  if (m.cmd === 'emit') {
    for (const v of SANDBOX_VENUES) sb.emitTrades(v, m.perVenue);
    send({ delivered: delivered() });
  } else if (m.cmd === 'prepare') {
    for (const v of SANDBOX_VENUES) sb.servers[v]?.hold();
    for (let i = 0; i < m.bursts; i++) for (const v of SANDBOX_VENUES) sb.emitTrades(v, m.perVenue);
    send({ delivered: delivered() });
  } else if (m.cmd === 'release') {
    void Promise.all(SANDBOX_VENUES.map((v) => sb.servers[v]?.release() ?? Promise.resolve(0))).then((n) =>
      send({ delivered: delivered(), frames: n.reduce((a, b) => a + b, 0) }),
    );
  } else if (m.cmd === 'delivered') send({ delivered: delivered() });
  else if (m.cmd === 'stop') void sb.stop().then(() => process.exit(0));
});
send({ urls: sb.urls });
