/**
 * VenueRest gap fills: a paced request holds the next one back by its pace, and fills of overlapping outages run
 * one after another (a paced crawl never runs twice at once); stop() ends a crawl before its next request.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { childLogger } from '#platform/log.ts';
import { RestPoller } from '../transport/rest-poller.ts';
import type { GapFillSpec, VenueConnectorSpec } from '../connector/types.ts';
import { CapturingPublisher } from './testing/capturing-publisher.ts';
import { VenueRest } from './venue-rest.ts';
import { VenueSink } from './venue-sink.ts';

const PACE_MS = 80;

function setUp(): { rest: VenueRest; starts: { url: string; at: number }[] } {
  const starts: { url: string; at: number }[] = [];
  const fakeFetch = (async (input: string | URL | Request) => {
    starts.push({ url: String(input), at: performance.now() });
    return new Response('[]', { status: 200 });
  }) as typeof fetch;
  const gapFill: GapFillSpec = {
    covers: () => true,
    requests: (_symbols, sinceMs) =>
      [1, 2, 3].map((k) => ({
        id: `r${k}`,
        url: `http://venue/${sinceMs}/${k}`,
        paceMs: PACE_MS,
        parse: () => ({ ok: true, events: [], nextUrl: null }),
      })),
  };
  const spec = { venue: 'binance', urls: {}, gapFill } as Pick<VenueConnectorSpec, 'venue' | 'urls' | 'gapFill'> as VenueConnectorSpec;
  const client = new RestPoller({ venue: 'binance', fetch: fakeFetch, intervalCap: 1_000 });
  const rest = new VenueRest(spec, client, new VenueSink('binance', new CapturingPublisher()), new Map(), new Map(), childLogger('test'));
  return { rest, starts };
}

test('paced gap-fill requests start at least paceMs apart, and two overlapping fills run one after the other', async () => {
  const { rest, starts } = setUp();
  // Two outages' fills asked at once (since 100_000 and 200_000 after the margin).
  await Promise.all([
    rest.gapFill(['BTCUSDT'], 130_000, 140_000, new Set(['public-0'])),
    rest.gapFill(['BTCUSDT'], 230_000, 240_000, new Set(['public-0'])),
  ]);
  assert.deepEqual(
    starts.map((s) => s.url),
    [1, 2, 3].map((k) => `http://venue/100000/${k}`).concat([1, 2, 3].map((k) => `http://venue/200000/${k}`)),
  );
  for (let i = 1; i < starts.length; i++) {
    const gap = (starts[i]?.at ?? 0) - (starts[i - 1]?.at ?? 0);
    assert.ok(gap >= PACE_MS - 2, `request ${i} started ${gap.toFixed(1)} ms after the previous one (pace ${PACE_MS})`);
  }
});

test('stop() ends a running crawl before its next request', async () => {
  const { rest, starts } = setUp();
  const fill = rest.gapFill(['BTCUSDT'], 130_000, 140_000, new Set(['public-0']));
  await new Promise((r) => setTimeout(r, PACE_MS / 2));
  rest.stop();
  await fill;
  assert.equal(starts.length, 1);
});
