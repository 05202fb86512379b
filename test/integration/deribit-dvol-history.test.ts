import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { fixtureText } from '#ingest/venues/fixtures/load.ts';
import { createParserContext } from '#ingest/connector/context.ts';
import { volatilityIndexRest, sandboxDvolAt } from '#sandbox/servers/deribit-dvol.ts';
import { createDeribitConnector } from '#ingest/venues/deribit/index.ts';
import { DVOL_HISTORY_DAYS, dvolHistoryPollers, dvolHistoryUrl, parseDvolHistory } from '#ingest/venues/deribit/dvol-history.ts';

const REST = 'https://www.deribit.com';
const DAY = 86_400_000;
const ctxAt = (receivedAt: number) => createParserContext({ venue: 'deribit', connection: 'rest', receivedAt });

describe('deribit DVOL history (public/get_volatility_index_data)', () => {
  test('pollers: BTC and ETH only, resolution 3600, daily re-poll; the connector exposes them', () => {
    const p = dvolHistoryPollers(REST, ['BTCUSDT', 'SOLUSDT', 'ETHUSDT']);
    assert.deepEqual(
      p.map((x) => [x.id, x.intervalMs]),
      [
        ['deribit:dvol-history:BTC', DAY],
        ['deribit:dvol-history:ETH', DAY],
      ],
    );
    assert.equal(
      p[0]?.url,
      `${REST}/api/v2/public/get_volatility_index_data?currency=BTC&start_timestamp=0&end_timestamp=9999999999999&resolution=3600`,
    );
    assert.deepEqual(
      createDeribitConnector()
        .pollers(['ETHUSDT'], [])
        .map((x) => x.id),
      ['deribit:dvol-history:ETH'],
    );
  });

  test('documented shape: each candle -> vol_index event at its start with its open; continuation -> next page', () => {
    const r = parseDvolHistory(fixtureText('deribit/get_volatility_index_data.json'), ctxAt(1598026512345), REST, 'BTC');
    assert.ok(r.ok);
    assert.deepEqual(
      r.events.map((e) => e.event),
      [
        {
          venue: 'deribit',
          symbol: 'BTCUSDT',
          ts: 1598019300000,
          receivedAt: 1598026512345,
          id: 'deribit:vol_index:btc_usd:1598019300000',
          kind: 'vol_index',
          name: 'btc_usd',
          value: 60.21,
        },
        {
          venue: 'deribit',
          symbol: 'BTCUSDT',
          ts: 1598022900000,
          receivedAt: 1598026512345,
          id: 'deribit:vol_index:btc_usd:1598022900000',
          kind: 'vol_index',
          name: 'btc_usd',
          value: 61.28,
        },
        {
          venue: 'deribit',
          symbol: 'BTCUSDT',
          ts: 1598026500000,
          receivedAt: 1598026512345,
          id: 'deribit:vol_index:btc_usd:1598026500000',
          kind: 'vol_index',
          name: 'btc_usd',
          value: 61.5,
        },
      ],
    );
    assert.equal(r.nextUrl, dvolHistoryUrl(REST, 'BTC', 1598019299999));
  });

  test('paging stops once the continuation is older than the history window', () => {
    const body = fixtureText('deribit/get_volatility_index_data.json');
    const r = parseDvolHistory(body, ctxAt(1598019299999 + DVOL_HISTORY_DAYS * DAY), REST, 'BTC');
    assert.ok(r.ok);
    assert.equal(r.nextUrl, null);
  });

  test('malformed bodies are refused (dead letter), never thrown', () => {
    for (const body of ['<html>', '{"result":{}}', '{"result":{"data":[[1,"x",1,1,1]]}}', '{"result":{"data":[[1,2]]}}']) {
      const r = parseDvolHistory(body, ctxAt(0), REST, 'BTC');
      assert.equal(r.ok, false, body);
    }
  });

  test('sandbox serves a deterministic history the parser pages back through', () => {
    const now = Date.UTC(2026, 0, 5, 12, 30);
    const all: number[] = [];
    let url: string | null = dvolHistoryUrl('http://x', 'ETH', 9_999_999_999_999);
    for (let page = 0; url !== null && page < 20; page++) {
      const reply = volatilityIndexRest(new URL(url).searchParams, now);
      assert.equal(reply.status, 200);
      const r = parseDvolHistory(JSON.stringify(reply.body), ctxAt(now), 'http://x', 'ETH');
      assert.ok(r.ok);
      all.push(...r.events.map((e) => e.event.ts));
      url = r.nextUrl;
    }
    const sorted = [...new Set(all)].sort((a, b) => a - b);
    assert.equal(sorted.length, all.length, 'no candle twice');
    assert.equal(sorted.at(-1), Date.UTC(2026, 0, 5, 12));
    assert.ok((sorted[0] ?? 0) <= now - DVOL_HISTORY_DAYS * DAY, 'reaches the history window');
    for (let i = 1; i < sorted.length; i++) assert.equal((sorted[i] ?? 0) - (sorted[i - 1] ?? 0), 3_600_000);
    assert.equal(sandboxDvolAt('ETHUSDT', Date.UTC(2026, 0, 5)), sandboxDvolAt('ETHUSDT', Date.UTC(2026, 0, 5)));
    assert.equal(volatilityIndexRest(new URLSearchParams({ currency: 'SOL', resolution: '3600' }), now).status, 400);
  });
});
