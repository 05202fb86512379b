/**
 * Child process of the ws bench: opens N WebSocket clients to a URL and reads every message promptly.
 * IPC commands: {cmd:'connect', url, keys, n, subscribe}, {cmd:'report'}, {cmd:'close'}. `received` counts the
 * notifications (frames with "subscription") of the current clients. Sampler clients (every
 * 20th) parse each notification and record receive time − trade time (the trade's `time` is its publish time, whole
 * ms); with `arrivals: true` they also keep each notification's `trade_id` and its receive instant on the machine's
 * monotonic clock (`process.hrtime`, ms with µs digits, the same clock in every process), and `report` returns them,
 * for a publisher that kept the same clock's instant of each publish (exact to the µs instead of to the ms).
 */
import { WebSocket } from 'ws';

interface Connect {
  cmd: 'connect';
  url: string;
  keys: string[];
  n: number;
  subscribe: boolean;
  arrivals?: boolean;
}
type Command = Connect | { cmd: 'report' } | { cmd: 'close' };

let clients: WebSocket[] = [];
/** Connect generation: clients of an earlier one (closed, still draining what the server had queued) are not counted. */
let generation = 0;
let received = 0;
let closedAbnormally: Record<string, number> = {};
let latencies: number[] = [];
/** [trade_id, receive instant (ms, monotonic clock)] of each sampled notification, when the connect asked for them. */
let arrivals: [string, number][] = [];
const monotonicMs = (): number => Number(process.hrtime.bigint()) / 1e6;

const send = (m: unknown): void => void process.send?.(m);

async function connect(c: Connect): Promise<void> {
  const gen = ++generation;
  received = 0;
  closedAbnormally = {};
  latencies = [];
  arrivals = [];
  const opened = await Promise.all(
    Array.from(
      { length: c.n },
      (_, i) =>
        new Promise<WebSocket>((resolve, reject) => {
          const key = c.keys[i % c.keys.length] ?? '';
          const ws = new WebSocket(c.url, { headers: { 'X-API-Key': key } });
          const sampler = i % 20 === 0;
          ws.on('message', (data: Buffer) => {
            if (gen !== generation || !data.includes('"subscription"')) return;
            received++;
            if (!sampler) return;
            const at = monotonicMs();
            const text = data.toString('utf8');
            const m = JSON.parse(text) as { params: { data: { time: string; trade_id: string } } };
            latencies.push(Date.now() - Date.parse(m.params.data.time));
            if (c.arrivals === true) arrivals.push([m.params.data.trade_id, at]);
          });
          ws.on('close', (code: number) => {
            if (code !== 1000 && code !== 1005) closedAbnormally[code] = (closedAbnormally[code] ?? 0) + 1;
          });
          ws.once('open', () => {
            if (c.subscribe)
              ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'public/subscribe', params: { channels: ['tape.BTCUSDT'] } }));
            resolve(ws);
          });
          ws.once('error', reject);
        }),
    ),
  );
  clients = opened;
}

process.on('message', (m: Command) => {
  if (m.cmd === 'connect')
    connect(m).then(
      () => send({ ok: true }),
      (err: unknown) => send({ ok: false, error: String(err) }),
    );
  else if (m.cmd === 'report') {
    const sorted = [...latencies].sort((a, b) => a - b);
    const q = (p: number): number | null =>
      sorted.length === 0 ? null : (sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? null);
    send({ received, samples: sorted.length, e2e_p50_ms: q(0.5), e2e_p99_ms: q(0.99), closedAbnormally, arrivals });
  } else {
    generation++;
    for (const ws of clients) ws.close(1000);
    clients = [];
    send({ ok: true });
  }
});
