import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { loadReferenceFiles, type SourceFile } from '#ingest/reference/load.ts';
import { assertError, assertOk } from '../testing/assertions.ts';
import { migratedStore, testApp, testClock, userWithKey } from '../testing/harness.ts';
import type { ApiInstance } from '../types.ts';

const fx = (name: string): SourceFile => ({
  name,
  text: readFileSync(new URL(`../../ingest/reference/fixtures/${name}`, import.meta.url), 'utf8'),
});
const synthetic = (names: readonly string[]) =>
  names.flatMap((n) => [fx(`sec_13f_synthetic_${n}_primary.xml`), fx(`sec_13f_synthetic_${n}_infotable.xml`)]);
const NOW = Date.parse('2026-08-24T12:00:00Z');

interface Row {
  id: string;
  categories: { category: string; role: string | null; net: number | null; percentile_1y: number | null }[];
  extremity: number | null;
  extreme: boolean;
  asset_class: string;
  smart: string;
  fast: string;
}

describe('reference routes', () => {
  let t: Awaited<ReturnType<typeof migratedStore>>;
  let app: ApiInstance;
  let key: string;

  before(async () => {
    t = await migratedStore();
    key = await userWithKey(t.store, { userId: 'pro', plan: 'bundle_monthly' });
    app = await testApp(t.store, {}, { clock: testClock(NOW) });
  });
  after(async () => {
    await app.close();
    await t.dispose();
  });
  const get = (url: string) => app.inject({ method: 'GET', url, headers: { 'x-api-key': key } });

  test('no data loaded at all: every route answers 404 NOT_FOUND', async () => {
    for (const url of [
      '/v2/etf/flows',
      '/v2/cot/summary',
      '/v2/cot/markets',
      '/v2/cot/instrument?id=133741',
      '/v2/filings/holders?ticker=MSTR',
    ]) {
      assertError(await get(url), 404, 'NOT_FOUND');
    }
  });

  test('load the fixtures', async () => {
    await loadReferenceFiles(t.store, 'etf', [fx('etf_flows_us_btc_usd_millions.csv'), fx('etf_flows_us_eth_usd_millions.csv')]);
    await loadReferenceFiles(t.store, 'cot', [fx('cftc_tff_futures_only_2026_slice.txt'), fx('cftc_legacy_futures_only_2025_slice.txt')]);
    await loadReferenceFiles(t.store, '13f', synthetic(['alpha_2025q4', 'beta_2025q4', 'alpha_2026q1', 'beta_2026q1', 'gamma_2026q1']));
  });

  test('/v2/etf/flows: per-fund days, totals, cumulatives; meta.extra region, latest_date, days_since_latest', async () => {
    const { data, meta } = assertOk<{
      funds: string[];
      days: { date: string; flows: Record<string, number>; total: number; cumulative: number }[];
      cumulative_total: number;
    }>(await get('/v2/etf/flows?asset=BTC'));
    assert.equal(data.days.length, 655);
    assert.equal(data.funds[0], 'IBIT');
    assert.deepEqual(data.days[0], {
      date: '2024-01-11',
      flows: {
        IBIT: 111.7,
        FBTC: 227,
        BITB: 237.9,
        ARKB: 65.3,
        BTCO: 17.4,
        EZBC: 50.1,
        BRRR: 29.4,
        HODL: 10.6,
        BTCW: 1,
        MSBT: 0,
        GBTC: -95.1,
        BTC: 0,
      },
      total: 655.3,
      cumulative: 655.3,
    });
    assert.equal(data.days[1]?.cumulative, 858.3);
    assert.equal(data.days.at(-1)?.date, '2026-08-21');
    assert.equal(data.cumulative_total, data.days.at(-1)?.cumulative);
    assert.deepEqual(meta['extra'], { region: 'us', latest_date: '2026-08-21', days_since_latest: 3 });
    const eth = assertOk<{ funds: string[] }>(await get('/v2/etf/flows?asset=ETH&region=us'));
    assert.ok(!eth.data.funds.includes('COL11'));
    assertError(await get('/v2/etf/flows?asset=SOL'), 404, 'NOT_FOUND');
    assertError(await get('/v2/etf/flows?asset=BTC&region=hk'), 404, 'NOT_FOUND');
    const bad = assertError(await get('/v2/etf/flows?asset=ETH&region=hk'), 422, 'VALIDATION_ERROR');
    assert.deepEqual(bad.error.details?.['errors'], [
      { name: 'region', location: 'query', message: 'hk flows are served for BTC only', received: 'hk' },
    ]);
    assertError(await get('/v2/etf/flows?asset=DOGE'), 422, 'VALIDATION_ERROR');
  });

  test('/v2/etf/flows region=hk: served once a Hong Kong BTC file is loaded, the US series unchanged', async () => {
    // Built for the test in the customary per-fund US$ millions layout (no Hong Kong sample file is bundled).
    const hk = {
      name: 'etf_flows_hk_btc_usd_millions.csv',
      text: 'date,3042.HK,3439.HK,3008.HK,Total\n2026-08-18,1.25,0.5,-0.25,1.5\n2026-08-19,0,0,0,0\n2026-08-20,-2,0.75,0,-1.25\n',
    };
    const report = await loadReferenceFiles(t.store, 'etf', [hk]);
    assert.deepEqual(
      report.map((f) => [f.written, f.skipped.length, f.errors.length]),
      [[2, 1, 0]],
    );
    const { data, meta } = assertOk<{
      funds: string[];
      days: { date: string; total: number; cumulative: number }[];
      cumulative_total: number;
    }>(await get('/v2/etf/flows?asset=BTC&region=hk'));
    assert.deepEqual(data.funds, ['3042.HK', '3439.HK', '3008.HK']);
    assert.deepEqual(
      data.days.map((d) => [d.date, d.total, d.cumulative]),
      [
        ['2026-08-18', 1.5, 1.5],
        ['2026-08-20', -1.25, 0.25],
      ],
    );
    assert.equal(data.cumulative_total, 0.25);
    assert.deepEqual(meta['extra'], { region: 'hk', latest_date: '2026-08-20', days_since_latest: 4 });
    assert.equal(assertOk<{ days: unknown[] }>(await get('/v2/etf/flows?asset=BTC')).data.days.length, 655);
  });

  test('/v2/cot/summary: crypto rows from TFF (preferred over Legacy), smart/fast, sorts, filters, limits', async () => {
    const { data, meta } = assertOk<{ rows: Row[]; asset_class: string; span: string; sort: string }>(await get('/v2/cot/summary'));
    assert.deepEqual([data.asset_class, data.span, data.sort], ['crypto', '3y', 'extremity']);
    assert.ok(data.rows.every((r) => r.asset_class === 'crypto'));
    const btc = data.rows.find((r) => r.id === '133741');
    assert.ok(btc);
    assert.deepEqual([btc.smart, btc.fast], ['asset_mgr', 'lev_money']);
    assert.equal(btc.categories.length, 5, 'TFF categories, not the Legacy report of the same market');
    const ext = data.rows.map((r) => r.extremity).filter((v): v is number => v !== null);
    assert.deepEqual(
      ext,
      [...ext].sort((a, b) => b - a),
      'sorted by extremity, larger first',
    );
    assert.deepEqual(meta['extra'], { latest_date: '2026-03-17' });
    const all = assertOk<{ rows: Row[] }>(await get('/v2/cot/summary?asset_class=all&limit=200&sort=net'));
    assert.deepEqual([...new Set(all.data.rows.map((r) => r.asset_class))].sort(), [
      'commodity_ag',
      'commodity_energy',
      'commodity_metal',
      'crypto',
      'equity',
      'fx',
      'rates',
    ]);
    assert.equal(assertOk<{ rows: Row[] }>(await get('/v2/cot/summary?asset_class=all&limit=2')).data.rows.length, 2);
    const gold = assertOk<{ rows: Row[] }>(await get('/v2/cot/summary?asset_class=commodity_metal')).data.rows;
    assert.deepEqual(
      gold.map((r) => [r.id, r.smart, r.fast]),
      [['088691', 'commercial', 'noncommercial']],
    );
    const extremes = assertOk<{ rows: Row[] }>(await get('/v2/cot/summary?asset_class=all&extremes_only=true&limit=200')).data.rows;
    assert.ok(extremes.every((r) => r.extreme));
    assert.ok(extremes.length < all.data.rows.length);
    for (const q of ['limit=0', 'limit=201', 'span=2y', 'sort=foo', 'asset_class=bonds', 'extremes_only=yes'])
      assertError(await get(`/v2/cot/summary?${q}`), 422, 'VALIDATION_ERROR');
  });

  test('/v2/cot/markets and /v2/cot/instrument: keys, history, percentiles; 404 unknown market, 422 bad id', async () => {
    const { data } = assertOk<{ markets: { id: string; report: string; smart: string; fast: string; weeks: number }[] }>(
      await get('/v2/cot/markets'),
    );
    const m = data.markets.find((x) => x.id === '133742');
    assert.deepEqual(m && [m.report, m.smart, m.fast, m.weeks], ['tff', 'asset_mgr', 'lev_money', 11]);
    const h = assertOk<{
      id: string;
      history: {
        date: string;
        open_interest: number;
        categories: { category: string; net: number | null; percentile_1y: number | null }[];
      }[];
    }>(await get('/v2/cot/instrument?id=090741&span=1y'));
    assert.equal(h.data.history.length, 11);
    const last = h.data.history.at(-1);
    assert.equal(last?.date, '2026-03-17');
    assert.equal(last?.open_interest, 247753);
    assert.deepEqual(
      last?.categories.map((c) => c.net),
      [44757 - 54576, 75094 - 45026, 26293 - 64145, 13761 - 1478, 29911 - 24591],
    );
    assertError(await get('/v2/cot/instrument?id=999999'), 404, 'NOT_FOUND');
    assertError(await get('/v2/cot/instrument?id=x'), 422, 'VALIDATION_ERROR');
    assertError(await get('/v2/cot/instrument'), 422, 'VALIDATION_ERROR');
  });

  test('/v2/filings/holders: latest quarter by shares, share_change null when not reported the prior quarter', async () => {
    const { data } = assertOk<{
      period_end: string;
      holder_count: number;
      holders: { name: string; shares: number; value_usd: number; share_change: number | null; period_end: string }[];
    }>(await get('/v2/filings/holders?ticker=MSTR'));
    assert.equal(data.period_end, '2026-03-31');
    assert.deepEqual(
      data.holders.map((h) => [h.name, h.shares, h.value_usd, h.share_change, h.period_end]),
      [
        ['ALPHA CAPITAL MANAGEMENT LLC', 120000, 42_000_000, 20000, '2026-03-31'],
        ['BETA ADVISORS LP', 40000, 14_000_000, 0, '2026-03-31'],
        ['GAMMA FUND & PARTNERS', 10000, 3_500_000, null, '2026-03-31'],
      ],
    );
    const hood = assertOk<{ holders: { shares: number; share_change: number | null }[] }>(
      await get('/v2/filings/holders?ticker=HOOD&limit=1'),
    );
    assert.deepEqual(hood.data.holders, [
      {
        cik: '0000000102',
        name: 'BETA ADVISORS LP',
        shares: 250000,
        value_usd: 10_000_000,
        share_change: -50000,
        period_end: '2026-03-31',
      },
    ]);
    assertError(await get('/v2/filings/holders?ticker=TSLA'), 422, 'VALIDATION_ERROR');
    assertError(await get('/v2/filings/holders?ticker=MSTR&limit=101'), 422, 'VALIDATION_ERROR');
  });

  test('/v2/cot/summary reflects a corrected file at once (its memo follows the stored data)', async () => {
    const net = async () =>
      assertOk<{ rows: Row[] }>(await get('/v2/cot/summary'))
        .data.rows.find((r) => r.id === '133741')
        ?.categories.find((c) => c.category === 'asset_mgr')?.net;
    assert.equal(await net(), 6954 - 1068);
    assert.equal(await net(), 6954 - 1068, 'served again from the memo');
    const tff = fx('cftc_tff_futures_only_2026_slice.txt');
    const corrected = tff.text.replace(
      ',2026-03-17,133741,CME ,00,133 ,   23807,    6302,    2257,    1834,    6954,',
      ',2026-03-17,133741,CME ,00,133 ,   23807,    6302,    2257,    1834,    7954,',
    );
    assert.notEqual(corrected, tff.text);
    await loadReferenceFiles(t.store, 'cot', [{ name: tff.name, text: corrected }]);
    assert.equal(await net(), 7954 - 1068);
    await loadReferenceFiles(t.store, 'cot', [tff]);
    assert.equal(await net(), 6954 - 1068);
  });

  test("the plan's history window: enforced for evaluation keys (older days and weeks not served), reported for paid plans", async () => {
    const as = (k: string) => async (url: string) => app.inject({ method: 'GET', url, headers: { 'x-api-key': k } });
    const starterEval = as(await userWithKey(t.store, { userId: 'eval-30d', plan: 'terminal_yearly', evaluation: true }));
    const standardEval = as(await userWithKey(t.store, { userId: 'eval-365d', plan: 'api_monthly', evaluation: true }));
    const standardPaid = as(await userWithKey(t.store, { userId: 'paid-365d', plan: 'api_monthly' }));
    await app.gex.accounts.refresh();
    type Flows = { days: { date: string; total: number }[]; cumulative_total: number };
    type Clamp = { served_from: string; requested_from: string; enforced: boolean; history_days: number };
    const clampOf = (meta: Record<string, unknown>) => (meta['extra'] as { history_clamp?: Clamp }).history_clamp;

    // ETF flows, 30-day evaluation key at 2026-08-24T12:00Z: the floor is 2026-07-25T12:00Z, so days from 07-26.
    const ev = assertOk<Flows>(await starterEval('/v2/etf/flows?asset=BTC'));
    assert.equal(ev.meta['history_depth_enforced'], true);
    assert.deepEqual(clampOf(ev.meta), {
      requested_from: '2024-01-11T00:00:00.000Z',
      requested_to: '2026-08-24T12:00:00.000Z',
      served_from: '2026-07-25T12:00:00.000Z',
      served_to: '2026-08-24T12:00:00.000Z',
      enforced: true,
      history_days: 30,
    });
    assert.equal(ev.data.days[0]?.date, '2026-07-27', 'the first business day after the floor');
    assert.equal(ev.data.days.at(-1)?.date, '2026-08-21');
    const sum = Math.round(ev.data.days.reduce((a, d) => a + d.total, 0) * 100) / 100;
    assert.equal(ev.data.cumulative_total, sum, 'cumulatives start at the first served day');
    // A paid plan with the same window: everything served, the clamp reported.
    const paid = assertOk<Flows>(await standardPaid('/v2/etf/flows?asset=BTC'));
    assert.equal(paid.data.days.length, 655);
    assert.equal(paid.meta['history_depth_enforced'], false);
    assert.equal(clampOf(paid.meta)?.enforced, false);
    assert.equal(clampOf(paid.meta)?.served_from, '2024-01-11T00:00:00.000Z');
    // The pro plan (1095 days) reaches the first day: no clamp.
    const pro = assertOk<Flows>(await get('/v2/etf/flows?asset=BTC'));
    assert.equal(clampOf(pro.meta), undefined);
    assert.equal(pro.meta['history_depth_enforced'], false);

    // COT: the 2025 Legacy slice (Jan-Mar 2025) is outside a 365-day window, the 2026 TFF slice inside.
    type Summary = { rows: { id: string; date: string }[] };
    const all = assertOk<Summary>(await get('/v2/cot/summary?asset_class=all&limit=200'));
    const clamped = assertOk<Summary>(await standardEval('/v2/cot/summary?asset_class=all&limit=200'));
    assert.ok(
      all.data.rows.some((r) => r.date < '2025-08-24'),
      'legacy-only markets end in March 2025',
    );
    assert.ok(clamped.data.rows.length > 0 && clamped.data.rows.length < all.data.rows.length);
    assert.ok(clamped.data.rows.every((r) => r.date >= '2025-08-24'));
    assert.equal(clamped.meta['history_depth_enforced'], true);
    assert.equal(clampOf(clamped.meta)?.served_from, '2025-08-24T12:00:00.000Z');
    const paidSummary = assertOk<Summary>(await standardPaid('/v2/cot/summary?asset_class=all&limit=200'));
    assert.equal(paidSummary.data.rows.length, all.data.rows.length);
    assert.equal(clampOf(paidSummary.meta)?.enforced, false);
    // Instrument: a 2026 market is served whole; the 2025-only CORN market has no week in the window.
    const h = assertOk<{ history: unknown[] }>(await standardEval('/v2/cot/instrument?id=090741&span=1y'));
    assert.equal(h.data.history.length, 11);
    assertOk(await get('/v2/cot/instrument?id=002602&span=all'));
    assertError(await standardEval('/v2/cot/instrument?id=002602&span=all'), 404, 'NOT_FOUND');
    assertError(await starterEval('/v2/cot/instrument?id=090741&span=1y'), 404, 'NOT_FOUND');
  });

  test('the routes and their parameters are published in /v2/endpoints', async () => {
    const { data } = assertOk<{ endpoints: { path: string; parameters: { name: string; location: string }[] }[] }>(
      await get('/v2/endpoints'),
    );
    const params = (p: string) =>
      data.endpoints
        .find((e) => e.path === p)
        ?.parameters.filter((x) => x.location === 'query')
        .map((x) => x.name)
        .sort();
    assert.deepEqual(params('/v2/etf/flows'), ['asset', 'region']);
    assert.deepEqual(params('/v2/cot/summary'), ['asset_class', 'extremes_only', 'limit', 'sort', 'span']);
    assert.deepEqual(params('/v2/cot/markets'), []);
    assert.deepEqual(params('/v2/cot/instrument'), ['id', 'span']);
    assert.deepEqual(params('/v2/filings/holders'), ['limit', 'ticker']);
  });
});
