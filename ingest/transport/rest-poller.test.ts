import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { RestError, RestPoller } from './rest-poller.ts';

async function httpServer(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<{ base: string; close: () => Promise<void> }> {
  const srv = createServer(handler);
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
  const port = (srv.address() as AddressInfo).port;
  return {
    base: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((r) => {
        srv.closeAllConnections();
        srv.close(() => r());
      }),
  };
}

describe('RestPoller', () => {
  test('respects the rate limit (sliding window) and concurrency', async () => {
    const starts: number[] = [];
    let inFlight = 0;
    let maxInFlight = 0;
    const srv = await httpServer((_req, res) => {
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      setTimeout(() => {
        inFlight--;
        res.end('{"ok":true}');
      }, 20);
    });
    const timedFetch: typeof fetch = (input, init) => {
      starts.push(Date.now());
      return fetch(input, init);
    };
    const poller = new RestPoller({ venue: 't_rate', concurrency: 2, intervalCap: 3, intervalMs: 200, fetch: timedFetch });
    try {
      const t0 = Date.now();
      const out = await Promise.all(Array.from({ length: 9 }, () => poller.json(`${srv.base}/x`)));
      assert.equal(out.length, 9);
      assert.deepEqual(out[0], { ok: true });
      const took = Date.now() - t0;
      assert.ok(took >= 400, `9 requests at 3/200ms took only ${took} ms`);
      for (let i = 3; i < starts.length; i++) {
        const gap = (starts[i] ?? 0) - (starts[i - 3] ?? 0);
        assert.ok(gap >= 190, `window violated: request ${i} started ${gap} ms after request ${i - 3}`);
      }
      assert.ok(maxInFlight <= 2, `max in flight ${maxInFlight}`);
    } finally {
      await poller.close();
      await srv.close();
    }
  });

  test('retries 5xx, 429 and timeouts, then succeeds; 4xx fails at once', async () => {
    let n = 0;
    const srv = await httpServer((req, res) => {
      if (req.url === '/bad') {
        res.statusCode = 400;
        res.end('{"code":-1121,"msg":"Invalid symbol."}');
        return;
      }
      n++;
      if (n === 1) {
        res.statusCode = 503;
        res.end('busy');
      } else if (n === 2) {
        res.statusCode = 429;
        res.setHeader('retry-after', '0');
        res.end('slow down');
      } else if (n === 3) {
        // hang past the timeout
        setTimeout(() => res.end('late'), 2_000);
      } else res.end('{"openInterest":"123.4"}');
    });
    // A timeout well above a local round trip on a busy machine: only the hanging answer times out.
    const poller = new RestPoller({ venue: 't_retry', timeoutMs: 400, retries: 4, backoff: { baseMs: 10, maxMs: 20 } });
    try {
      const body = await poller.json(`${srv.base}/fapi/v1/openInterest?symbol=BTCUSDT`);
      assert.deepEqual(body, { openInterest: '123.4' });
      assert.equal(n, 4);
      await assert.rejects(poller.request(`${srv.base}/bad`), (e: unknown) => e instanceof RestError && e.status === 400);
      assert.equal(n, 4, 'a 400 is not retried');
    } finally {
      await poller.close();
      await srv.close();
    }
  });

  test('gives up after the retries with the last status', async () => {
    let n = 0;
    const srv = await httpServer((_req, res) => {
      n++;
      res.statusCode = 502;
      res.end('bad gateway');
    });
    const poller = new RestPoller({ venue: 't_giveup', retries: 2, backoff: { baseMs: 5, maxMs: 10 } });
    try {
      await assert.rejects(poller.request(`${srv.base}/`), (e: unknown) => e instanceof RestError && e.status === 502);
      assert.equal(n, 3);
    } finally {
      await poller.close();
      await srv.close();
    }
  });

  test('schedule runs periodically without overlap and stops on close', async () => {
    let hits = 0;
    const srv = await httpServer((_req, res) => {
      hits++;
      res.end('[]');
    });
    const poller = new RestPoller({ venue: 't_sched' });
    const runs: number[] = [];
    let running = 0;
    let overlap = false;
    poller.schedule('oi', 50, async () => {
      running++;
      if (running > 1) overlap = true;
      runs.push(Date.now());
      await poller.request(`${srv.base}/`);
      await new Promise((r) => setTimeout(r, 30));
      running--;
    });
    await new Promise((r) => setTimeout(r, 280));
    await poller.close();
    const after = runs.length;
    await new Promise((r) => setTimeout(r, 120));
    assert.equal(runs.length, after, 'no runs after close');
    // Never more often than every 50 ms (plus a 30 ms run); fewer only when a busy machine runs the timers late.
    assert.ok(after >= 2 && after <= 7, `${after} runs in 280 ms at 50 ms`);
    assert.equal(overlap, false);
    assert.ok(hits >= 4);
    await srv.close();
  });
});
