import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { ResilientSocket, type ResilientSocketOptions, type SocketEvent } from './resilient-socket.ts';
import { startTestWsServer, waitFor } from './testing/ws-test-server.ts';
import { metricsRegistry } from '#platform/metrics/registry.ts';

const fast = { baseMs: 20, maxMs: 100, resetAfterMs: 60_000 };

/** A started socket with a 60 ms protocol heartbeat and no stale detection (the heartbeat tests). */
const heartbeatSocket = (url: string, venue: string, more: Partial<ResilientSocketOptions> = {}): ResilientSocket =>
  new ResilientSocket({
    url,
    venue,
    staleMs: 0,
    backoff: fast,
    heartbeat: { kind: 'protocol', intervalMs: 60 },
    onFrame: () => undefined,
    ...more,
  }).start();

/** The server side of `ws` answers no ping from now on (ws pongs by itself: its receiver's handler is removed). */
function swallowPings(ws: unknown): void {
  (ws as { _receiver: { removeAllListeners(e: string): void } })._receiver.removeAllListeners('ping');
}

async function metric(name: string, venue: string): Promise<number> {
  const m = await metricsRegistry.getSingleMetric(name)?.get();
  return m?.values.find((v) => v.labels.venue === venue)?.value ?? 0;
}

describe('ResilientSocket', () => {
  test('reconnects after the server drops it and re-sends the subscribe frames', async () => {
    const srv = await startTestWsServer((ws) => ws.send('{"hello":1}'));
    const frames: string[] = [];
    const events: SocketEvent[] = [];
    const sock = new ResilientSocket({
      url: srv.url,
      venue: 't_reconnect',
      backoff: fast,
      onOpen: () => ['{"op":"subscribe","args":["a"]}', '{"op":"subscribe","args":["b"]}'],
      onFrame: (f) => frames.push(String(f)),
      onEvent: (e) => events.push(e),
    }).start();
    try {
      await srv.waitFor(() => (srv.received[0]?.length ?? 0) === 2);
      srv.sockets[0]?.terminate();
      await srv.waitFor(() => (srv.received[1]?.length ?? 0) === 2);
      assert.deepEqual(srv.received[1], srv.received[0]);
      srv.sockets[1]?.close(1001, 'going away');
      await srv.waitFor(() => (srv.received[2]?.length ?? 0) === 2);
      assert.equal(frames.filter((f) => f === '{"hello":1}').length >= 2, true);
      const closes = events.filter((e) => e.type === 'close');
      assert.equal(closes.length, 2);
      assert.ok(closes.every((e) => e.type === 'close' && e.reconnectInMs !== null && e.reconnectInMs < 100));
      assert.ok((await metric('gex_ingest_reconnects_total', 't_reconnect')) >= 2);
      assert.equal(await metric('gex_ingest_open_connections', 't_reconnect'), 1);
      assert.ok((await metric('gex_ingest_frames_total', 't_reconnect')) >= 2);
    } finally {
      await sock.close();
      await srv.close();
    }
  });

  test('stale feed (no frame for staleMs) terminates and reconnects', async () => {
    const srv = await startTestWsServer((ws, i) => {
      if (i === 0) ws.send('only-one-frame'); // then silence
    });
    const events: SocketEvent[] = [];
    const sock = new ResilientSocket({
      url: srv.url,
      venue: 't_stale',
      staleMs: 150,
      backoff: fast,
      onFrame: () => undefined,
      onEvent: (e) => events.push(e),
    }).start();
    try {
      const t0 = Date.now();
      await srv.waitFor(() => srv.sockets.length >= 2, 3000);
      const took = Date.now() - t0;
      assert.ok(took >= 150, `reconnected after ${took} ms`);
      const stale = events.find((e) => e.type === 'stale');
      assert.ok(stale && stale.type === 'stale' && stale.silentMs > 150);
      assert.ok((await metric('gex_ingest_stale_reconnects_total', 't_stale')) >= 1);
    } finally {
      await sock.close();
      await srv.close();
    }
  });

  test('server protocol pings count as liveness: a quiet but pinging feed is not torn down', async () => {
    const timers: NodeJS.Timeout[] = [];
    const srv = await startTestWsServer((ws) => {
      timers.push(setInterval(() => ws.ping(), 50));
    });
    const events: SocketEvent[] = [];
    const sock = new ResilientSocket({
      url: srv.url,
      venue: 't_pinged',
      // Pings every 50 ms; the bound leaves room for a stall of the test process that the late-check rule lets through.
      staleMs: 400,
      backoff: fast,
      onFrame: () => undefined,
      onEvent: (e) => events.push(e),
    }).start();
    try {
      await new Promise((r) => setTimeout(r, 1_200));
      assert.equal(srv.sockets.length, 1, 'no reconnect while the server pings');
      assert.equal(events.filter((e) => e.type === 'stale').length, 0);
    } finally {
      for (const t of timers) clearInterval(t);
      await sock.close();
      await srv.close();
    }
  });

  test('app heartbeat is sent on schedule; whenIdle skips while frames flow', async () => {
    const srv = await startTestWsServer();
    const sock = new ResilientSocket({
      url: srv.url,
      venue: 't_hb',
      staleMs: 0,
      heartbeat: { kind: 'app', payload: () => '{"req_id":"1","op":"ping"}', intervalMs: 50 },
      onFrame: () => undefined,
    }).start();
    try {
      await srv.waitFor(() => srv.sockets.length === 1);
      const t0 = Date.now();
      await new Promise((r) => setTimeout(r, 330));
      const n = srv.received[0]?.filter((f) => f === '{"req_id":"1","op":"ping"}').length ?? 0;
      const expected = (Date.now() - t0) / 50;
      // Never more often than the interval; timers only run late on a busy machine, so fewer is tolerated down to 2.
      assert.ok(n >= Math.min(2, expected - 2) && n <= expected + 1, `${n} pings, expected ~${expected}`);
    } finally {
      await sock.close();
      await srv.close();
    }

    // OKX style: 'ping' only when idle.
    let feed: NodeJS.Timeout | null = null;
    const srv2 = await startTestWsServer((ws) => {
      feed = setInterval(() => ws.send('data'), 10);
    });
    const sock2 = new ResilientSocket({
      url: srv2.url,
      venue: 't_hb',
      staleMs: 0,
      // An interval far above the feed's 10 ms: a stall of the test process (another test file on the other core) longer
      // than the interval would run the beat before the waiting frames are read, and rightly send a ping.
      heartbeat: { kind: 'app', payload: 'ping', intervalMs: 250, whenIdle: true },
      onFrame: () => undefined,
    }).start();
    try {
      await srv2.waitFor(() => srv2.sockets.length === 1);
      await new Promise((r) => setTimeout(r, 600));
      assert.equal(srv2.received[0]?.filter((f) => f === 'ping').length, 0, 'no ping while data flows');
      if (feed) clearInterval(feed);
      await srv2.waitFor(() => (srv2.received[0]?.filter((f) => f === 'ping').length ?? 0) >= 2, 2000);
    } finally {
      if (feed) clearInterval(feed);
      await sock2.close();
      await srv2.close();
    }
  });

  test('answers a server test_request (Deribit) with public/test', async () => {
    const srv = await startTestWsServer((ws) => {
      ws.send('{"jsonrpc":"2.0","method":"heartbeat","params":{"type":"test_request"}}');
    });
    let id = 100;
    const sock = new ResilientSocket({
      url: srv.url,
      venue: 't_deribit_hb',
      replyTo: (f) =>
        f.includes('"test_request"') ? JSON.stringify({ jsonrpc: '2.0', id: ++id, method: 'public/test', params: {} }) : null,
      onFrame: () => undefined,
    }).start();
    try {
      await srv.waitFor(() => (srv.received[0]?.length ?? 0) === 1);
      assert.deepEqual(JSON.parse(srv.received[0]?.[0] ?? ''), { jsonrpc: '2.0', id: 101, method: 'public/test', params: {} });
    } finally {
      await sock.close();
      await srv.close();
    }
  });

  test('protocol heartbeat: a peer that stops answering pings is dropped and re-dialled', async () => {
    const srv = await startTestWsServer((ws, i) => {
      if (i === 0) swallowPings(ws); // a half-dead peer
    });
    const sock = heartbeatSocket(srv.url, 't_proto_hb');
    try {
      await srv.waitFor(() => srv.sockets.length >= 2, 2000);
    } finally {
      await sock.close();
      await srv.close();
    }
  });

  test('protocol heartbeat: a peer whose pongs are late but whose frames keep coming is kept (the pong waits behind them)', async () => {
    // Pings swallowed (no pong at all) while a frame arrives every 10 ms: frames read after each ping prove the
    // connection alive, as a backlog read after a pause does while its pong is still queued behind it.
    const srv = await startTestWsServer((ws) => {
      swallowPings(ws);
      const t = setInterval(() => ws.send('tick'), 10);
      ws.on('close', () => clearInterval(t));
    });
    const events: SocketEvent[] = [];
    let frames = 0;
    const sock = heartbeatSocket(srv.url, 't_proto_hb_busy', { onFrame: () => frames++, onEvent: (e) => events.push(e) });
    try {
      await waitFor(() => frames > 0);
      await new Promise((r) => setTimeout(r, 600)); // 10 beats without a pong
      assert.equal(srv.sockets.length, 1, 'one connection throughout');
      assert.equal(events.filter((e) => e.type === 'close').length, 0, 'no pong kill');
      assert.ok(frames > 20, `${frames} frames read`);
    } finally {
      await sock.close();
      await srv.close();
    }
  });

  test('max lifetime rotates make-before-break and resubscribes', async () => {
    const srv = await startTestWsServer((ws) => {
      const t = setInterval(() => ws.send('tick'), 10);
      ws.on('close', () => clearInterval(t));
    });
    const events: SocketEvent[] = [];
    const sock = new ResilientSocket({
      url: srv.url,
      venue: 't_lifetime',
      maxLifetimeMs: 150,
      rotateOverlapMs: 50,
      onOpen: () => ['SUB'],
      onFrame: () => undefined,
      onEvent: (e) => events.push(e),
    }).start();
    try {
      await srv.waitFor(() => srv.sockets.length >= 3, 3000);
      await srv.waitFor(() => srv.received[2]?.[0] === 'SUB');
      assert.ok(events.some((e) => e.type === 'lifetime'));
      assert.ok(events.some((e) => e.type === 'open' && e.replacing));
      // the rotated-out connections were closed by the client, normally, without a reconnect cycle
      assert.equal(events.filter((e) => e.type === 'close' && e.reconnectInMs !== null).length, 0);
      assert.equal(await metric('gex_ingest_reconnects_total', 't_lifetime'), 0);
    } finally {
      await sock.close();
      await srv.close();
    }
  });

  test('close() stops reconnecting', async () => {
    const srv = await startTestWsServer();
    const sock = new ResilientSocket({ url: srv.url, venue: 't_close', backoff: fast, onFrame: () => undefined }).start();
    await srv.waitFor(() => srv.sockets.length === 1);
    await sock.close();
    await waitFor(() => srv.wss.clients.size === 0);
    await new Promise((r) => setTimeout(r, 250));
    assert.equal(srv.sockets.length, 1);
    assert.equal(sock.isOpen, false);
    assert.equal(await metric('gex_ingest_open_connections', 't_close'), 0);
    await srv.close();
  });

  test('keeps redialling an unreachable server with growing backoff, close() ends it', async () => {
    const srv = await startTestWsServer();
    const url = srv.url;
    await srv.close();
    const delays: number[] = [];
    const sock = new ResilientSocket({
      url,
      venue: 't_down',
      backoff: { baseMs: 10, maxMs: 80 },
      random: () => 0.999,
      onFrame: () => undefined,
      onEvent: (e) => {
        if (e.type === 'close' && e.reconnectInMs !== null) delays.push(e.reconnectInMs);
      },
    }).start();
    await waitFor(() => delays.length >= 5, 3000);
    await sock.close();
    assert.deepEqual(delays.slice(0, 5), [9, 19, 39, 79, 79]);
  });
});

describe('ResilientSocket backpressure', () => {
  test('holdReading stops reading until the promise settles; no stale reconnect or pong kill meanwhile; every frame arrives', async () => {
    // The server writes 200 numbered frames of 1 KB every 10 ms while the connection is open, MAX_SENT at most: on a
    // stalled machine it once wrote 579,800 (580 MB) before the test stopped it, more than catching up could read in 30 s;
    // and with 50,000 the whole suite's load once left 11,421 unread after 30 s (~1,300 frames/s read).
    const MAX_SENT = 20_000;
    let sent = 0;
    const pad = 'x'.repeat(1000);
    let stopWriting: () => void = () => undefined;
    const srv = await startTestWsServer((ws) => {
      const t = setInterval(() => {
        for (let i = 0; i < 200 && sent < MAX_SENT; i++) ws.send(`${sent++} ${pad}`);
      }, 10);
      stopWriting = () => clearInterval(t);
      ws.on('close', () => clearInterval(t));
    });
    const got: number[] = [];
    const events: SocketEvent[] = [];
    let release: () => void = () => undefined;
    const sock = new ResilientSocket({
      url: srv.url,
      venue: 't_hold',
      backoff: fast,
      staleMs: 150,
      heartbeat: { kind: 'protocol', intervalMs: 50 },
      onFrame: (f) => got.push(Number(String(f).split(' ', 1)[0])),
      onEvent: (e) => events.push(e),
    }).start();
    try {
      await waitFor(() => got.length > 500);
      sock.holdReading(new Promise<void>((r) => (release = r)));
      assert.equal(sock.readingPaused, true);
      await new Promise((r) => setTimeout(r, 100)); // frames already received are still delivered
      const atPause = got.length;
      await new Promise((r) => setTimeout(r, 600)); // 4x staleMs, 12 unanswered ping beats
      assert.ok(got.length - atPause < 200, `read ${got.length - atPause} frames while paused`);
      assert.ok(sent - got.length > 1_000, `the server kept writing (${sent - got.length} frames unread)`);
      assert.equal(events.filter((e) => e.type === 'stale' || e.type === 'close').length, 0, 'no stale kill, no pong kill');
      release();
      // The server stops writing once reading resumes, so catching up does not race a writer on the same cores.
      stopWriting();
      // Up to MAX_SENT frames wait in the server's buffer: on a busy machine (the whole suite on 2 cores) catching up
      // took more than 10 s once and reads ~1,300 frames/s at worst. A lost frame still fails here, with the counts.
      await waitFor(() => !sock.readingPaused && got.length === sent, 60_000).catch((err: unknown) => {
        throw new Error(`${String(err)}: sent ${sent}, received ${got.length}, reading paused ${sock.readingPaused}`);
      });
      assert.ok(events.some((e) => e.type === 'read_paused') && events.some((e) => e.type === 'read_resumed'));
      assert.equal(srv.sockets.length, 1, 'one connection throughout');
      assert.ok(
        got.every((n, i) => n === i),
        'every frame, in order',
      );
      assert.ok((await metric('gex_ingest_read_pauses_total', 't_hold')) >= 1);
    } finally {
      await sock.close();
      await srv.close();
    }
  });

  test('overlapping holds resume after the last one settles', async () => {
    const srv = await startTestWsServer();
    const sock = new ResilientSocket({ url: srv.url, venue: 't_hold2', backoff: fast, onFrame: () => undefined }).start();
    try {
      await waitFor(() => sock.isOpen);
      let first: () => void = () => undefined;
      let second: () => void = () => undefined;
      sock.holdReading(new Promise<void>((r) => (first = r)));
      sock.holdReading(new Promise<void>((r) => (second = r)));
      first();
      await new Promise((r) => setTimeout(r, 10));
      assert.equal(sock.readingPaused, true);
      second();
      await new Promise((r) => setTimeout(r, 10));
      assert.equal(sock.readingPaused, false);
    } finally {
      await sock.close();
      await srv.close();
    }
  });
});
