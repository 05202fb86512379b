import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fixtureText } from '../venues/fixtures/load.ts';
import { createParadexConnector } from '../venues/paradex/index.ts';
import { encodeTrade } from '../venues/paradex/sbe-encode.ts';
import { createDeriveConnector } from '../venues/derive/index.ts';
import { createThalexConnector } from '../venues/thalex/index.ts';
import type { VenueConnectorSpec } from '../connector/types.ts';
import { startTestWsServer, waitFor } from '../transport/testing/ws-test-server.ts';
import { CapturingPublisher } from './testing/capturing-publisher.ts';
import { socketHeartbeat, startVenue } from './venue-runner.ts';

interface SeenRequest {
  readonly method: string;
  readonly path: string;
  readonly contentType: string | undefined;
  readonly body: string;
}

/** A local HTTP server answering with `reply(request)`; records every request with its body. */
async function startHttp(reply: (r: SeenRequest) => string): Promise<{ url: string; seen: SeenRequest[]; close: () => Promise<void> }> {
  const seen: SeenRequest[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r: SeenRequest = {
        method: req.method ?? '',
        path: req.url ?? '',
        contentType: req.headers['content-type'],
        body: Buffer.concat(chunks).toString('utf8'),
      };
      seen.push(r);
      res.setHeader('content-type', 'application/json');
      res.end(reply(r));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

describe('venue runner: framework hooks used by Derive, Thalex, Delta, Bullish and Paradex', () => {
  test('binary frames go to parseBinary (Paradex SBE); a malformed binary frame is one base64 dead letter', async () => {
    const http = await startHttp(() => fixtureText('paradex/markets.json'));
    const good = encodeTrade({
      timestampUs: 1_778_150_400_123_000n,
      seqNo: 7n,
      tradeId: 123_456_789n,
      side: 2,
      price: 9_650_050_000_000n,
      size: 12_500_000n,
      createdAtUs: 1_778_150_400_120_000n,
      tradeType: 1,
      market: 'BTC-USD-PERP',
    });
    const truncated = good.subarray(0, 30);
    const ws = await startTestWsServer((sock) => {
      sock.on('message', () => {
        sock.send(good, { binary: true });
        sock.send(truncated, { binary: true });
      });
    });
    const publisher = new CapturingPublisher();
    const running = await startVenue({
      spec: createParadexConnector({ rest: http.url, ws: `${ws.url}/v1?sbeSchemaId=1&sbeSchemaVersion=1` }),
      symbols: ['BTCUSDT'],
      publisher,
    });
    try {
      await waitFor(() => publisher.events.some((e) => e.type === 'perp_trade') && publisher.letters.length > 0);
      const trade = publisher.events.find((e) => e.type === 'perp_trade');
      assert.ok(trade && trade.type === 'perp_trade');
      assert.equal(trade.event.id, 'paradex:BTC-USD-PERP:123456789');
      assert.equal(trade.event.price, 96500.5);
      assert.equal(trade.event.size, 0.125);
      assert.equal(trade.event.side, 'sell');
      const letter = publisher.letters[0];
      assert.ok(letter);
      assert.equal(letter.encoding, 'base64');
      assert.equal(letter.raw, truncated.toString('base64'));
      assert.match(letter.reason, /sbe truncated/);
    } finally {
      await running.stop();
      await ws.close();
      await http.close();
    }
  });

  test('POST listings: the runner sends method, headers and body, and the next page body (Derive)', async () => {
    const http = await startHttp((r) => {
      const body = JSON.parse(r.body || '{}') as { instrument_type?: string; page?: number };
      if (body.instrument_type === 'perp') return fixtureText('derive/instruments_perp_btc.json');
      return body.page === 1 ? fixtureText('derive/instruments_option_btc.json') : fixtureText('derive/instruments_empty.json');
    });
    const ws = await startTestWsServer();
    const publisher = new CapturingPublisher();
    const running = await startVenue({ spec: createDeriveConnector({ rest: http.url, ws: ws.url }), symbols: ['BTCUSDT'], publisher });
    try {
      assert.ok(http.seen.length >= 3);
      for (const r of http.seen) {
        assert.equal(r.method, 'POST');
        assert.equal(r.contentType, 'application/json');
        assert.ok(r.path.startsWith('/public/get_all_instruments'));
      }
      const bodies = http.seen.map((r) => JSON.parse(r.body) as { instrument_type: string; page: number });
      assert.deepEqual(
        bodies
          .filter((b) => b.instrument_type === 'option')
          .map((b) => b.page)
          .sort(),
        [1, 2],
        'page 2 requested with its own body',
      );
      assert.deepEqual(
        bodies.filter((b) => b.instrument_type === 'perp').map((b) => b.page),
        [1],
      );
      assert.ok(running.instruments().some((i) => i.instrument === 'BTC-PERP'));
      assert.ok(running.instruments().some((i) => i.instrument === 'BTC-20261225-100000-C'));
    } finally {
      await running.stop();
      await ws.close();
      await http.close();
    }
  });

  test('client_protocol_ping: the socket sends WebSocket pings at the interval (Thalex rule)', async () => {
    const thalex = createThalexConnector({ ws: 'ws://x', rest: 'http://x' });
    const plan = thalex.connections(
      ['BTCUSDT'],
      [
        {
          venue: 'thalex',
          symbol: 'BTCUSDT',
          ts: 0,
          receivedAt: 0,
          id: 'i',
          instrument: 'BTC-PERPETUAL',
          kind: 'perp',
          strike: null,
          expiry: null,
          optionType: null,
          contractSize: 1,
          settlementCurrency: 'USD',
          quoteCurrency: 'USD',
          active: true,
        },
      ],
    )[0];
    assert.deepEqual(plan?.heartbeat, { kind: 'client_protocol_ping', intervalMs: 5000 });
    assert.deepEqual(socketHeartbeat({ kind: 'client_protocol_ping', intervalMs: 5000 }), { kind: 'protocol', intervalMs: 5000 });

    let pings = 0;
    const ws = await startTestWsServer((sock) => sock.on('ping', () => pings++));
    const spec: VenueConnectorSpec = {
      venue: 'thalex',
      urls: {},
      instrumentRequests: () => [],
      connections: () => [
        {
          id: 'public',
          url: ws.url,
          subscribeFrames: ['{"method":"public/subscribe","params":{"channels":[]},"id":1}'],
          // Long enough for a pong to be read before the next ping on a busy machine (an unanswered one ends the socket).
          heartbeat: { kind: 'client_protocol_ping', intervalMs: 150 },
        },
      ],
      pollers: () => [],
      parse: () => ({ ok: true, outcome: 'ignored', events: [], control: { kind: 'ack' } }),
      instrumentFromName: () => null,
    };
    const running = await startVenue({ spec, symbols: ['BTCUSDT'], publisher: new CapturingPublisher() });
    try {
      await waitFor(() => pings >= 3, 3000);
      assert.equal(ws.sockets.length, 1, 'answered pings keep the one connection');
      assert.deepEqual(
        ws.received[0],
        ['{"method":"public/subscribe","params":{"channels":[]},"id":1}'],
        'pings are protocol frames, not text',
      );
    } finally {
      await running.stop();
      await ws.close();
    }
  });
});
