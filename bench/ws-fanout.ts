/**
 * Micro-bench of one fan-out (first part of `npm run bench -- ws`; alone: `node --import tsx bench/ws-fanout.ts`):
 * the real FeedHub and Session with CLIENTS real sockets (clients in bench/ws-clients-process.ts reading promptly).
 * For K consecutive tape notifications it times the synchronous call that writes them to every subscriber:
 *   per-frame: K × FeedHub.publish (one ws.send, one socket write per frame per subscriber),
 *   batched:   one FeedHub.publishMany of K (Session.deliverMany: the run's K frames, framed once, in one socket write).
 * Printed: ms per fan-out (p50) and µs per frame per subscriber. Between rounds the sockets drain to empty.
 * Settings: WS_FANOUT_CLIENTS (1000), WS_FANOUT_ROUNDS (15).
 */
import { fork } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { WebSocketServer } from 'ws';
import { tapeRow } from '#query-api/tape/tape-row.ts';
import { FeedHub } from '#query-api/ws/hub.ts';
import { parseChannel } from '#query-api/ws/protocol.ts';
import { Session } from '#query-api/ws/session.ts';
import { feedTrade } from '#query-api/ws/testing/trade.ts';

const CLIENTS = Number(process.env['WS_FANOUT_CLIENTS'] ?? 1000);
const ROUNDS = Number(process.env['WS_FANOUT_ROUNDS'] ?? 15);
const BATCHES = [1, 8, 32, 128] as const;
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

export async function runWsFanoutBench(): Promise<void> {
  const hub = new FeedHub();
  const channel = parseChannel('tape.BTCUSDT');
  if (channel === null) throw new Error('no tape channel');
  const sessions = new Set<Session>();
  const server = createServer();
  const wss = new WebSocketServer({ noServer: true });
  server.on('upgrade', (req, socket, head) =>
    wss.handleUpgrade(req, socket, head, (ws) => {
      const s: Session = new Session({
        ws,
        socket,
        hub,
        maxBufferedBytes: 256 * 2 ** 20,
        heartbeatMs: 3_600_000,
        onEnd: () => sessions.delete(s),
      });
      sessions.add(s);
      hub.subscribe(channel, s);
    }),
  );
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const proc = fork(fileURLToPath(new URL('./ws-clients-process.ts', import.meta.url)), [], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const ask = (m: unknown): Promise<unknown> =>
    new Promise((resolve) => {
      proc.once('message', resolve);
      proc.send(m as never);
    });
  const drained = async (): Promise<void> => {
    while ([...sessions].some((s) => s.bufferedAmount() > 0)) await sleep(5);
    await sleep(20);
  };
  try {
    const url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    await ask({ cmd: 'connect', url, keys: [''], n: CLIENTS, subscribe: false });
    await sleep(500);
    let n = 0;
    const data = (): string => JSON.stringify(tapeRow(feedTrade(Date.now(), n++, { prefix: 'fanout' })));
    for (const k of BATCHES) {
      const perFrame: number[] = [];
      const batched: number[] = [];
      for (let r = 0; r < ROUNDS; r++) {
        const a = Array.from({ length: k }, data);
        await drained();
        let t0 = performance.now();
        for (const d of a) hub.publish(channel.name, d, t0);
        perFrame.push(performance.now() - t0);
        const b = Array.from({ length: k }, data);
        await drained();
        t0 = performance.now();
        hub.publishMany(channel.name, b, t0);
        batched.push(performance.now() - t0);
      }
      const pf = median(perFrame);
      const bt = median(batched);
      const us = (ms: number): number => Math.round(((ms * 1000) / (k * sessions.size)) * 100) / 100;
      process.stdout.write(
        `ws fan-out of ${k} frame(s) to ${sessions.size} sockets: per-frame publish ${pf.toFixed(2)} ms (${us(pf)} µs/frame/socket), ` +
          `publishMany ${bt.toFixed(2)} ms (${us(bt)} µs/frame/socket), ratio ${(pf / Math.max(bt, 1e-6)).toFixed(2)}x\n`,
      );
    }
  } finally {
    await ask({ cmd: 'close' });
    proc.kill();
    for (const s of [...sessions]) s.close(1001, 'bench done');
    await new Promise<void>((r) => wss.close(() => server.close(() => r())));
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  runWsFanoutBench().then(
    () => process.exit(0),
    (err: unknown) => {
      process.stderr.write(`ws fan-out bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      process.exit(1);
    },
  );
}
