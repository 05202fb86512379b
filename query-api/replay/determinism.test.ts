/**
 * Replay determinism (issue #30 item 4) over 2 hours of 30 s BTCUSDT snapshots (240 ticks, 4 venues) made by the
 * snapshot processor's code (syntheticChain → rowsFromChain → levelsOf → gammaFlowPoints, stored with its record
 * mappers in its table order, batched), with a restart in the middle: the cycle of tick 150 stores its
 * venue rows and the process dies before the tick completes; it comes back 5 min later (at tick 160) with a 2 min
 * catch-up window, so planCatchUp computes ticks 156-160 from the store and ticks 150-155 stay missing (150 with
 * orphan venue rows); live ticks go on from 161. Every 10th tick has no dealer inventory (the flow model falls back
 * to std there). Option trades all along (ties across venues, one redelivered trade). Asserts:
 * - two replays of the window are byte-identical, and equal to the stream read in 60-row store pages;
 * - every levels message (all venues, and `levels.BTCUSDT.deribit,okx`) equals the /v2/gex/levels as_of answer at
 *   its instant under `positioning=flow` (`exchanges=deribit,okx` for the filtered channel); where the flow model fell
 *   back to std the message equals the `positioning=std` answer too; where flow ran it differs from it (every 10th);
 * - across the restart the levels replay yields exactly the completed stored instants, ascending, once each, seq
 *   1..n, the orphan rows of tick 150 and the skipped ticks absent; the tape yields every stored trade once, in
 *   order, seq 1..n.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { pino } from 'pino';
import { optionTradeRow } from '#clickhouse/rows.ts';
import type { Store } from '#clickhouse/store.ts';
import { optionTrade } from '#clickhouse/testing/fixtures.ts';
import type { DealerModel } from '#processors/analytics/types.ts';
import { syntheticChain } from '#processors/analytics/testing/synthetic-chain.ts';
import { planCatchUp } from '#processors/snapshots/catch-up.ts';
import { rowsFromChain } from '#processors/snapshots/compute-step.ts';
import { snapshotConfig } from '#processors/snapshots/config.ts';
import { GAMMA_FLOW_TABLE, type GammaFlowPoint } from '#processors/snapshots/gamma-flow.ts';
import { LEVELS_TABLE, toLevelsRecord } from '#processors/snapshots/levels-record.ts';
import { gammaFlowPoints, levelsOf, MODELS } from '#processors/snapshots/levels-step.ts';
import { SNAPSHOT_TABLE, toSnapshotRecord, type SnapshotSource } from '#processors/snapshots/snapshot-record.ts';
import type { Venue } from '#schemas/events.ts';
import { SnapshotCache } from '../gex/snapshot-cache.ts';
import { migratedStore, testApp, testClock, userWithKey } from '../testing/harness.ts';
import type { ApiInstance } from '../types.ts';
import { parseReplayRequest } from './request.ts';
import { replayLines } from './stream.ts';

const INTERVAL = 30_000;
const H0 = Date.UTC(2026, 9, 5, 10, 0, 0);
const TICKS = 240;
const tickAt = (i: number): number => H0 + i * INTERVAL;
const CRASH = 150;
const UP = 160;
const CATCH_UP_MS = 120_000;
const VENUES: readonly Venue[] = ['deribit', 'okx', 'bybit', 'binance'];
const FILTER = 'deribit,okx';
const NOW = tickAt(TICKS) + 60_000;
const FROM = new Date(tickAt(0) - 1_000).toISOString();
const TO = new Date(tickAt(TICKS - 1) + 1_000).toISOString();
const STORED = 'ranked,max_pain,expected_move,zones,spot';
const TRADES = 1_200;

interface Line {
  readonly channel?: string;
  readonly at?: string;
  readonly seq?: number;
  readonly data?: Record<string, unknown>;
  readonly type?: string;
  readonly counts?: Record<string, number>;
}
const linesOf = (body: string): Line[] =>
  body
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as Line);
const iso = (ms: number): string => new Date(ms).toISOString();

/**
 * The processor's writes (write-step.ts, in its order: gex_snapshots, gex_levels, gamma_flow) of a run of ticks,
 * batched: one insert per table and run instead of three per tick (~70 ms a tick on chDB).
 */
class History {
  private snapshots: Record<string, unknown>[] = [];
  private levels: Record<string, unknown>[] = [];
  private flow: GammaFlowPoint[] = [];
  private readonly prev: Record<DealerModel, GammaFlowPoint | null> = { flow: null, std: null };

  /** One tick from a synthetic 4-venue chain: venue rows, then (unless `rowsOnly`: the cycle died there) levels and gamma flow. */
  tick(i: number, source: SnapshotSource, rowsOnly = false): void {
    const t = tickAt(i);
    const spot = 100_000 * Math.exp(0.01 * Math.sin(i / 17) + 0.003 * Math.sin(i / 3));
    const chain = syntheticChain({
      symbol: 'BTCUSDT',
      now: t,
      spot,
      venues: VENUES,
      perVenue: 40,
      seed: 7_000 + i,
      withInventory: i % 10 !== 7,
    });
    const rows = rowsFromChain(chain, source);
    this.snapshots.push(...rows.map(toSnapshotRecord));
    if (rowsOnly) return;
    const s = levelsOf('BTCUSDT', t, rows);
    this.levels.push(...MODELS.map((m) => toLevelsRecord('BTCUSDT', t, m, s.levels[m], s.meta.spot, s.meta.perp_price, s.coverage)));
    const flow = gammaFlowPoints(s, this.prev);
    this.flow.push(...flow);
    for (const p of flow) this.prev[p.model] = p;
  }

  async flush(store: Store): Promise<void> {
    await store.insert(SNAPSHOT_TABLE, this.snapshots);
    await store.insert(LEVELS_TABLE, this.levels);
    await store.insert(GAMMA_FLOW_TABLE, this.flow);
    [this.snapshots, this.levels, this.flow] = [[], [], []];
  }
}

/** The history described above; returns the completed ticks (indexes) and those the catch-up computed. */
async function seedHistory(store: Store): Promise<{ readonly completed: number[]; readonly filled: number[] }> {
  const history = new History();
  const completed: number[] = [];
  for (let i = 0; i < CRASH; i++) {
    history.tick(i, 'live');
    completed.push(i);
  }
  history.tick(CRASH, 'live', true);
  await history.flush(store);
  const cfg = snapshotConfig({ symbols: ['BTCUSDT'], catchUpWindowMs: CATCH_UP_MS });
  const plan = await planCatchUp(store, cfg, tickAt(UP), tickAt(UP), pino({ level: 'silent' }));
  const filled = plan.map((p) => Math.round((p.tick - H0) / INTERVAL));
  for (const i of filled) {
    history.tick(i, 'store');
    completed.push(i);
  }
  for (let i = UP + 1; i < TICKS; i++) {
    history.tick(i, 'live');
    completed.push(i);
  }
  await history.flush(store);
  // The raw writer kept storing trades while the processor was down; pairs of venues print on the same millisecond.
  const rows = Array.from({ length: TRADES }, (_, k) => {
    const ts = tickAt(0) + Math.floor(k / 2) * 11_000 + 7;
    return optionTradeRow({
      ...optionTrade(k),
      venue: k % 2 === 0 ? 'okx' : 'deribit',
      ts,
      receivedAt: ts + 5,
      id: `d:${k}`,
      tradeId: `d${k}`,
    });
  });
  await store.insert('option_trades', rows);
  // A redelivered trade (the same key stored twice) is served once.
  await store.insert('option_trades', rows.slice(100, 101));
  return { completed, filled };
}

describe('replay determinism over 2 hours of snapshots with a restart', () => {
  let t: Awaited<ReturnType<typeof migratedStore>>;
  let app: ApiInstance;
  let key: string;
  let seeded: Awaited<ReturnType<typeof seedHistory>>;

  before(async () => {
    t = await migratedStore();
    const s0 = performance.now();
    seeded = await seedHistory(t.store);
    process.stderr.write(`seeded in ${(performance.now() - s0).toFixed(0)} ms\n`);
    key = await userWithKey(t.store, { userId: 'determinism', plan: 'enterprise' });
    app = await testApp(
      t.store,
      { responseValidation: false },
      { clock: testClock(NOW), snapshots: new SnapshotCache(t.store, { pollMs: 0 }) },
    );
  });
  after(async () => {
    await app.close();
    await t.dispose();
  });

  const get = (url: string) => app.inject({ url, headers: { 'x-api-key': key } });
  const replay = (channels: string) =>
    get(`/v2/replay?channels=${encodeURIComponent(channels)}&from=${encodeURIComponent(FROM)}&to=${encodeURIComponent(TO)}`);
  const messagesOf = (body: string, channel: string): Line[] => linesOf(body).filter((l) => l.channel === channel);

  test('the seeded history: a gap of stored ticks after the crash, ticks computed by the catch-up', () => {
    assert.deepEqual(seeded.filled, [156, 157, 158, 159, 160]);
    assert.equal(seeded.completed.length, TICKS - 6);
  });

  test('two replays of the window are byte-identical, and equal to the stream read in 60-row store pages', async () => {
    const channels = `levels.BTCUSDT,levels.BTCUSDT.${FILTER},tape.BTCUSDT`;
    const a = await replay(channels);
    const b = await replay(channels);
    assert.equal(a.statusCode, 200, a.body);
    assert.equal(a.body, b.body);
    const parsed = parseReplayRequest({ channels, from: FROM, to: TO }, NOW);
    assert.ok(parsed.ok);
    let paged = '';
    for await (const line of replayLines(t.store, parsed.request, undefined, 60)) paged += line;
    const messages = (body: string): string => body.slice(0, body.lastIndexOf('{"type":"replay_done"'));
    assert.equal(messages(paged), messages(a.body));
    assert.deepEqual(linesOf(a.body).at(-1)?.counts, {
      'levels.BTCUSDT': TICKS - 6,
      [`levels.BTCUSDT.${FILTER}`]: TICKS - 6,
      'tape.BTCUSDT': TRADES,
    });
  });

  for (const venues of [undefined, FILTER] as const) {
    const channel = venues === undefined ? 'levels.BTCUSDT' : `levels.BTCUSDT.${venues}`;
    test(`every ${channel} message equals the /v2/gex/levels as_of answer at its instant (flow; std where flow fell back)`, async () => {
      const lines = messagesOf((await replay(channel)).body, channel);
      assert.equal(lines.length, TICKS - 6);
      const filter = venues === undefined ? '' : `&exchanges=${venues}`;
      const rest = async (at: string, model: DealerModel) => {
        const res = await get(
          `/v2/gex/levels?symbol=BTCUSDT&as_of=${encodeURIComponent(at)}&include=${STORED}&positioning=${model}${filter}`,
        );
        assert.equal(res.statusCode, 200, res.body);
        return res.json<{ data: unknown; meta: Record<string, unknown> & { extra: Record<string, unknown> } }>();
      };
      let fellBack = 0;
      const check = async (l: Line): Promise<void> => {
        const at = l.at ?? '';
        const flow = await rest(at, 'flow');
        const d = l.data as Record<string, unknown>;
        assert.equal(JSON.stringify(d['levels']), JSON.stringify(flow.data), `${channel} at ${at}`);
        assert.deepEqual(d['positioning'], flow.meta.extra['positioning']);
        assert.deepEqual(
          [d['computed_at'], d['spot_price'], d['source'], d['exchanges_filtered']],
          [at, flow.meta['spot_price'], flow.meta['source'], flow.meta['exchanges_filtered']],
        );
        // The channel carries the flow model (std where it fell back): the std answer equals it exactly there, and
        // differs where flow ran (checked at every 10th instant).
        const served = (d['positioning'] as { served: DealerModel }).served;
        if (served === 'std') fellBack++;
        if (served !== 'std' && (l.seq ?? 0) % 10 !== 1) return;
        const std = JSON.stringify((await rest(at, 'std')).data);
        if (served === 'std') assert.equal(JSON.stringify(d['levels']), std, `${channel} at ${at}: std fallback`);
        else assert.notEqual(JSON.stringify(d['levels']), std, `${channel} at ${at}: flow`);
      };
      // Four requests in flight: the engine answers one while the app serializes another.
      const queue = [...lines];
      await Promise.all(
        Array.from({ length: 4 }, async () => {
          for (let l = queue.shift(); l !== undefined; l = queue.shift()) await check(l);
        }),
      );
      // Ticks 7, 17, ..., 237 have no inventory: flow fell back to std (147 is before the crash, 157 was filled).
      assert.equal(fellBack, lines.filter((l) => Math.round((Date.parse(l.at ?? '') - H0) / INTERVAL) % 10 === 7).length);
      assert.equal(fellBack, 24);
    });
  }

  test('across the restart: exactly the stored completed instants in order, once each, seq contiguous; every trade once', async () => {
    const body = (await replay('levels.BTCUSDT,tape.BTCUSDT')).body;
    const levels = messagesOf(body, 'levels.BTCUSDT');
    const expected = [...seeded.completed].sort((x, y) => x - y).map((i) => iso(tickAt(i)));
    assert.deepEqual(
      levels.map((l) => l.at),
      expected,
    );
    const stored = await t.store.query<{ t: number }>(
      `SELECT toFloat64(toUnixTimestamp64Milli(computed_at)) AS t FROM gex_levels WHERE symbol = 'BTCUSDT' AND model = 'std' ORDER BY computed_at`,
    );
    assert.deepEqual(
      levels.map((l) => l.at),
      stored.map((r) => iso(r.t)),
    );
    for (const i of [150, 151, 155]) assert.ok(!expected.includes(iso(tickAt(i))), `tick ${i} must be missing`);
    assert.deepEqual(
      levels.map((l) => l.seq),
      Array.from({ length: levels.length }, (_, k) => k + 1),
    );
    const tape = messagesOf(body, 'tape.BTCUSDT');
    assert.equal(tape.length, TRADES);
    assert.equal(new Set(tape.map((l) => `${String(l.data?.['venue'])}|${String(l.data?.['trade_id'])}`)).size, TRADES);
    assert.deepEqual(
      tape.map((l) => l.seq),
      Array.from({ length: TRADES }, (_, k) => k + 1),
    );
    for (let k = 1; k < tape.length; k++) assert.ok(Date.parse(tape[k - 1]?.at ?? '') <= Date.parse(tape[k]?.at ?? ''));
    // Ties: at one millisecond the two venues' trades come in /v2/tape order (venue, then id).
    assert.deepEqual(
      tape.slice(0, 2).map((l) => l.data?.['venue']),
      ['deribit', 'okx'],
    );
  });
});
