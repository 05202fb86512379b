import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { steadyLoad } from './steady-load.ts';

test('steady load: the rate is held and a slow server shows in the latencies (measured from the due time)', async () => {
  let served = 0;
  const server = createServer((req, res) => {
    served++;
    const status = req.url === '/missing' ? 404 : 200;
    setTimeout(() => res.writeHead(status).end('ok'), 20);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  try {
    // A stall of the machine during the run shifts every latency after it (they are measured from the due time), so
    // the comparison with the starved run below needs a run that held the rate: at most three tries.
    const unqueued = () => steadyLoad({ url: `http://127.0.0.1:${port}/x`, headers: {}, rate: 200, durationSec: 1, connections: 16 });
    let r = await unqueued();
    for (let attempt = 1; ; attempt++) {
      assert.equal(r.total, 200);
      assert.equal(served, 200 * attempt);
      assert.equal(r.errors, 0);
      assert.equal(r.non2xx, 0);
      // Never above the rate. Below it only by the stalls of a busy machine (104 req/s once in CI), and then the time
      // lost is in the latencies, measured from the due time: the last request is due at 995 ms, so the slowest
      // latency is at least the run's wall time minus 995 ms.
      assert.ok(r.rps <= 205, `rps ${r.rps}`);
      const wallMs = (1000 * r.total) / r.rps;
      assert.ok(r.max >= wallMs - 995 - 0.1, `a shortfall shows in the latencies: max ${r.max} ms, wall ${wallMs.toFixed(0)} ms`);
      assert.ok(r.p50 >= 20, `p50 ${r.p50}`);
      assert.ok(r.p99 >= r.p50 && r.max >= r.p99);
      if (wallMs <= 1_100) break;
      assert.ok(attempt < 3, `three runs stalled (the last: wall ${wallMs.toFixed(0)} ms for 1,000 ms of requests)`);
      r = await unqueued();
    }

    // 2 sockets = 100 req/s of capacity at 200 req/s offered: requests wait for a socket, on the clock.
    const starved = await steadyLoad({ url: `http://127.0.0.1:${port}/missing`, headers: {}, rate: 200, durationSec: 1, connections: 2 });
    assert.equal(starved.non2xx, 200);
    assert.ok(starved.p99 > 500, `queueing must show: p99 ${starved.p99}`);
    // 16 sockets x (1 request per 20 ms) = 800 req/s of capacity: without queueing the median of a run that held the
    // rate is the server's 20 ms plus scheduling (a fixed bound failed on a busy machine: 372 ms at load average 17);
    // with queueing it is hundreds of ms more on the same machine (a stalled first run once had 1,179 ms against 1,066).
    assert.ok(r.p50 < starved.p50, `no queueing at 16 sockets: p50 ${r.p50} vs ${starved.p50} starved`);
  } finally {
    server.close();
  }
});
