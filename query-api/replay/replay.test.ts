/**
 * GET /v2/replay on a chDB store seeded through the processor write path (testing/gex-fixture.ts: BTCUSDT cycles
 * at A, B, C and the raw option trades): line order, every levels line's data against the /v2/gex/levels as_of
 * answer at its instant (all venues and a venue filter), tape lines against /v2/tape pages, chain snapshot then
 * changes, byte-identical repeats (plain, gzip, small store pages), the plan window clamp and the 422 answers.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { gunzipSync } from 'node:zlib';
import { SnapshotCache } from '../gex/snapshot-cache.ts';
import { A, B, C, seedGex } from '../testing/gex-fixture.ts';
import { migratedStore, testApp, testClock, userWithKey } from '../testing/harness.ts';
import type { ApiInstance } from '../types.ts';
import { parseReplayRequest } from './request.ts';
import { replayLines } from './stream.ts';

interface Line {
  readonly channel?: string;
  readonly at?: string;
  readonly seq?: number;
  readonly data?: Record<string, unknown>;
  readonly type?: string;
  readonly from?: string;
  readonly to?: string;
  readonly counts?: Record<string, number>;
  readonly history_clamp?: { readonly requested_from: string; readonly served_from: string };
}

const NOW = C + 10_000;
const iso = (ms: number): string => new Date(ms).toISOString();
const FROM = iso(A - 3 * 3600_000);
const TO = iso(C + 5_000);
const STORED = 'ranked,max_pain,expected_move,zones,spot';
const linesOf = (body: string): Line[] =>
  body
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as Line);

describe('GET /v2/replay', () => {
  let t: Awaited<ReturnType<typeof migratedStore>>;
  let app: ApiInstance;
  let key: string;
  let evalKey: string;

  before(async () => {
    t = await migratedStore();
    await seedGex(t.store);
    const cache = new SnapshotCache(t.store, { pollMs: 0 });
    await cache.refresh();
    key = await userWithKey(t.store, { userId: 'replay', plan: 'enterprise' });
    evalKey = await userWithKey(t.store, { userId: 'replay-eval', plan: 'terminal_yearly', evaluation: true });
    app = await testApp(t.store, {}, { clock: testClock(NOW), snapshots: cache });
  });
  after(async () => {
    await app.close();
    await t.dispose();
  });

  const get = (url: string, k = key, headers: Record<string, string> = {}) => app.inject({ url, headers: { 'x-api-key': k, ...headers } });
  const replay = (channels: string, from = FROM, to = TO) =>
    `/v2/replay?channels=${encodeURIComponent(channels)}&from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`;

  test('NDJSON in time order (instant, then channel name, then channel order), seq per channel, replay_done counts', async () => {
    const res = await get(replay('tape.BTCUSDT,levels.BTCUSDT,chain.BTCUSDT'));
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.headers['content-type'], 'application/x-ndjson; charset=utf-8');
    assert.ok(res.body.endsWith('\n'));
    const lines = linesOf(res.body);
    const done = lines[lines.length - 1] as Line;
    const messages = lines.slice(0, -1);
    assert.equal(done.type, 'replay_done');
    assert.deepEqual([done.from, done.to], [FROM, TO]);
    const count = (c: string) => messages.filter((m) => m.channel === c).length;
    assert.deepEqual(done.counts, { 'tape.BTCUSDT': count('tape.BTCUSDT'), 'levels.BTCUSDT': 3, 'chain.BTCUSDT': 3 });
    assert.ok(count('tape.BTCUSDT') >= 5);
    for (let i = 1; i < messages.length; i++) {
      const [p, m] = [messages[i - 1] as Line, messages[i] as Line];
      const order =
        Date.parse(p.at ?? '') - Date.parse(m.at ?? '') || ((p.channel ?? '') < (m.channel ?? '') ? -1 : p.channel === m.channel ? 0 : 1);
      assert.ok(order <= 0, `line ${i}: ${p.at} ${p.channel} before ${m.at} ${m.channel}`);
    }
    // At each tick the chain line goes before the levels line (channel name order).
    assert.deepEqual(
      messages.filter((m) => m.channel !== 'tape.BTCUSDT').map((m) => `${m.at} ${m.channel} ${m.seq}`),
      [A, B, C].flatMap((x) => [`${iso(x)} chain.BTCUSDT`, `${iso(x)} levels.BTCUSDT`]).map((s, i) => `${s} ${Math.floor(i / 2) + 1}`),
    );
    assert.deepEqual(
      messages.filter((m) => m.channel === 'chain.BTCUSDT').map((m) => [m.data?.['type'], m.data?.['computed_at']]),
      [
        ['snapshot', iso(A)],
        ['changes', iso(B)],
        ['changes', iso(C)],
      ],
    );
    assert.deepEqual(
      messages.filter((m) => m.channel === 'tape.BTCUSDT').map((m) => m.seq),
      Array.from({ length: count('tape.BTCUSDT') }, (_, i) => i + 1),
    );
  });

  for (const venues of [undefined, 'deribit'] as const) {
    test(`every levels${venues === undefined ? '' : `.${venues}`} line: data.levels byte-equal to /v2/gex/levels?as_of at its instant`, async () => {
      const channel = venues === undefined ? 'levels.BTCUSDT' : `levels.BTCUSDT.${venues}`;
      const lines = linesOf((await get(replay(channel))).body).slice(0, -1);
      assert.equal(lines.length, 3);
      for (const l of lines) {
        assert.equal(l.channel, channel);
        const rest = await get(
          `/v2/gex/levels?symbol=BTCUSDT&as_of=${encodeURIComponent(l.at ?? '')}&include=${STORED}${venues === undefined ? '' : `&exchanges=${venues}`}`,
        );
        assert.equal(rest.statusCode, 200, rest.body);
        const { data, meta } = rest.json<{ data: unknown; meta: Record<string, unknown> & { extra: Record<string, unknown> } }>();
        const d = l.data as Record<string, unknown>;
        assert.equal(JSON.stringify(d['levels']), JSON.stringify(data));
        assert.deepEqual(d['positioning'], meta.extra['positioning']);
        assert.deepEqual(
          [d['computed_at'], d['spot_price'], d['source'], d['exchanges_filtered']],
          [l.at, meta['spot_price'], meta['source'], meta['exchanges_filtered']],
        );
      }
    });
  }

  test('tape lines: the stored trades in /v2/tape ascending order, each line data = the page row', async () => {
    const lines = linesOf((await get(replay('tape.BTCUSDT'))).body).slice(0, -1);
    const page = await get(`/v2/tape?symbol=BTCUSDT&order=asc&limit=1000&from=${encodeURIComponent(FROM)}&to=${encodeURIComponent(TO)}`);
    const trades = page.json<{ data: { trades: { time: string }[] } }>().data.trades;
    assert.ok(trades.length >= 5);
    assert.equal(JSON.stringify(lines.map((l) => l.data)), JSON.stringify(trades));
    assert.deepEqual(
      lines.map((l) => l.at),
      trades.map((r) => r.time),
    );
  });

  test('determinism: two replays byte-identical; gzip of the same bytes; 1-row store pages give the same lines', async () => {
    const url = replay('levels.BTCUSDT.okx,deribit,tape.BTCUSDT,chain.BTCUSDT.deribit');
    const a = await get(url);
    const b = await get(url);
    assert.equal(a.body, b.body);
    const z = await get(url, key, { 'accept-encoding': 'gzip' });
    assert.equal(z.headers['content-encoding'], 'gzip');
    assert.equal(gunzipSync(z.rawPayload).toString('utf8'), a.body);
    const parsed = parseReplayRequest(
      { channels: 'levels.BTCUSDT.okx,deribit,tape.BTCUSDT,chain.BTCUSDT.deribit', from: FROM, to: TO },
      NOW,
    );
    assert.ok(parsed.ok);
    let small = '';
    for await (const line of replayLines(t.store, parsed.request, undefined, 1)) small += line;
    assert.deepEqual(linesOf(small).at(-1)?.counts, linesOf(a.body).at(-1)?.counts);
    // The route's done line also reports the key's plan clamp (this key's plan has no history days: reported, not enforced).
    const messages = (body: string): string => body.slice(0, body.lastIndexOf('{"type":"replay_done"'));
    assert.equal(messages(small), messages(a.body));
    assert.ok(messages(a.body).length > 10_000);
  });

  test('empty window: only the done line with zero counts', async () => {
    const res = await get(replay('levels.ETHUSDT,tape.BTCUSDT', iso(A - 10 * 86_400_000), iso(A - 9 * 86_400_000)));
    assert.equal(res.statusCode, 200);
    const lines = linesOf(res.body);
    assert.equal(lines.length, 1);
    const { history_clamp: _clamp, ...done } = lines[0] as Line;
    assert.deepEqual(done, {
      type: 'replay_done',
      from: iso(A - 10 * 86_400_000),
      to: iso(A - 9 * 86_400_000),
      counts: { 'levels.ETHUSDT': 0, 'tape.BTCUSDT': 0 },
    });
  });

  test('plan window: an evaluation key reaching beyond its plan is served the allowed window, reported in replay_done', async () => {
    const from = iso(NOW - 400 * 86_400_000);
    const lines = linesOf((await get(replay('levels.BTCUSDT', from), evalKey)).body);
    const done = lines[lines.length - 1] as Line;
    assert.equal(done.history_clamp?.requested_from, from);
    assert.equal(done.from, done.history_clamp?.served_from);
    assert.ok(Date.parse(done.from ?? '') > Date.parse(from));
    assert.equal(done.counts?.['levels.BTCUSDT'], 3);
  });

  test('422 with details.errors: unknown channel, bad instants, from >= to, future, too many channels; 401 without a key', async () => {
    const errors = async (url: string): Promise<string[]> => {
      const res = await get(url);
      assert.equal(res.statusCode, 422, res.body);
      const body = res.json<{ error: { code: string; details: { errors: { name: string }[] } } }>();
      assert.equal(body.error.code, 'VALIDATION_ERROR');
      return body.error.details.errors.map((e) => e.name);
    };
    assert.deepEqual(await errors(replay('tape.DOGEUSDT')), ['channels']);
    assert.deepEqual(await errors(replay('levels.BTCUSDT.nowhere')), ['channels']);
    assert.deepEqual(await errors(replay('tape.BTCUSDT', 'yesterday', 'x')), ['from', 'to']);
    assert.deepEqual(await errors(replay('tape.BTCUSDT', TO, FROM)), ['from']);
    assert.deepEqual(await errors(replay('tape.BTCUSDT', FROM, iso(NOW + 60_000))), ['to']);
    const many = ['BTCUSDT', 'ETHUSDT', 'SOLUSDT'].flatMap((s) => [`tape.${s}`, `levels.${s}`, `chain.${s}`]);
    assert.deepEqual(await errors(replay(many.join(','))), ['channels']);
    assert.deepEqual(await errors('/v2/replay?channels=tape.BTCUSDT'), ['from', 'to']);
    assert.equal((await app.inject({ url: replay('tape.BTCUSDT') })).statusCode, 401);
  });
});
