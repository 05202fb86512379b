import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { migrate } from '#clickhouse/migrate.ts';
import type { Store } from '#clickhouse/store.ts';
import { openTempStore } from '#clickhouse/testing/temp-store.ts';
import { loadReferenceFiles, type SourceFile } from './load.ts';

const fx = (name: string): SourceFile => ({ name, text: readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8') });

let t: Awaited<ReturnType<typeof openTempStore>>;
let store: Store;
before(async () => {
  t = await openTempStore();
  store = t.store;
  await migrate(store);
});
after(async () => {
  await t.dispose();
});

const q = <T>(sql: string) => store.query<T>(sql);

test('ETF: load, reload (nothing changes), corrected file replaces the days it covers; progress lines', async () => {
  const file = fx('etf_flows_us_btc_usd_millions.csv');
  const lines: string[] = [];
  const [r1] = await loadReferenceFiles(store, 'etf', [file], { now: 1000, progress: (l) => lines.push(l), batchRows: 300 });
  assert.equal(r1?.written, 655);
  assert.equal(r1?.skipped.length, 17);
  assert.deepEqual(lines.slice(0, 3), [
    'etf_flows_us_btc_usd_millions.csv: 300/655 rows written to etf_flows',
    'etf_flows_us_btc_usd_millions.csv: 600/655 rows written to etf_flows',
    'etf_flows_us_btc_usd_millions.csv: 655/655 rows written to etf_flows',
  ]);
  const sum = "SELECT count() AS n, round(sum(total_usd_m), 1) AS total FROM etf_flows FINAL WHERE region = 'us' AND asset = 'BTC'";
  const before = await q<{ n: string; total: number }>(sum);
  await loadReferenceFiles(store, 'etf', [file], { now: 2000 });
  assert.deepEqual(await q(sum), before, 'reload changes nothing');
  // Corrected file: 2024-01-12 restated (IBIT 386 -> 400, total 203 -> 217) and GBTC dropped from that day's table.
  const corrected = { name: file.name, text: 'date,IBIT,FBTC,Total\n2024-01-12,400,195.3,595.3\n' };
  await loadReferenceFiles(store, 'etf', [corrected], { now: 3000 });
  const day = await q<{ funds: string[]; flows_usd_m: number[]; total_usd_m: number }>(
    "SELECT funds, flows_usd_m, total_usd_m FROM etf_flows FINAL WHERE asset = 'BTC' AND date = '2024-01-12'",
  );
  assert.deepEqual(day, [{ funds: ['IBIT', 'FBTC'], flows_usd_m: [400, 195.3], total_usd_m: 595.3 }]);
  const after = await q<{ n: string; total: number }>(sum);
  assert.equal(after[0]?.n, before[0]?.n);
  assert.equal(after[0]?.total, Math.round(((before[0]?.total ?? 0) - 203 + 595.3) * 10) / 10);
});

test('a file with one bad row is refused whole (file and line reported), nothing written; other files load', async () => {
  const bad = { name: 'etf_flows_us_sol_x.csv', text: 'date,AAA,Total\n2026-03-02,1,1\n2026-03-03,x,1\n' };
  const good = { name: 'etf_flows_us_xrp_x.csv', text: 'date,AAA,Total\n2026-03-02,1,1\n' };
  const reports = await loadReferenceFiles(store, 'etf', [bad, good]);
  assert.deepEqual(reports[0]?.errors, [{ file: bad.name, line: 3, message: "bad number 'x' in column 2" }]);
  assert.equal(reports[0]?.written, 0);
  assert.equal(reports[1]?.written, 1);
  assert.deepEqual(await q("SELECT asset FROM etf_flows FINAL WHERE asset IN ('SOL', 'XRP')"), [{ asset: 'XRP' }]);
  const hk = await loadReferenceFiles(store, 'etf', [{ name: 'etf_flows_hk_eth.csv', text: good.text }]);
  assert.match(hk[0]?.errors[0]?.message ?? '', /BTC only/);
});

test('COT: idempotent reload; a corrected file replaces the market-weeks it covers', async () => {
  const file = fx('cftc_tff_futures_only_2026_slice.txt');
  await loadReferenceFiles(store, 'cot', [file, fx('cftc_legacy_futures_only_2025_slice.txt')], { now: 1000 });
  const count = 'SELECT report, count() AS n FROM cot_positions FINAL GROUP BY report ORDER BY report';
  assert.deepEqual(await q(count), [
    { report: 'legacy', n: '40' },
    { report: 'tff', n: '118' },
  ]);
  await loadReferenceFiles(store, 'cot', [file], { now: 2000 });
  assert.deepEqual(await q(count), [
    { report: 'legacy', n: '40' },
    { report: 'tff', n: '118' },
  ]);
  const lines = file.text.split('\n');
  const fixed = [lines[0], (lines[1] as string).replace(',  247753,', ',  247754,')].join('\n');
  await loadReferenceFiles(store, 'cot', [{ name: 'fix.txt', text: fixed }], { now: 3000 });
  assert.deepEqual(
    await q("SELECT open_interest, source_file FROM cot_positions FINAL WHERE market_code = '090741' AND report_date = '2026-03-17'"),
    [{ open_interest: 247754, source_file: 'fix.txt' }],
  );
  assert.deepEqual(await q(count), [
    { report: 'legacy', n: '40' },
    { report: 'tff', n: '118' },
  ]);
});

test('13F: a filing loads once per (filer, quarter); a restatement replaces it, dropped holdings disappear', async () => {
  const files = [fx('sec_13f_synthetic_alpha_2026q1_primary.xml'), fx('sec_13f_synthetic_alpha_2026q1_infotable.xml')];
  await loadReferenceFiles(store, '13f', files, { now: 1000 });
  await loadReferenceFiles(store, '13f', files, { now: 2000 });
  const read = "SELECT filer_name, cusips, shares FROM filings_13f FINAL WHERE filer_cik = '0000000101'";
  assert.deepEqual(await q(read), [
    { filer_name: 'ALPHA CAPITAL MANAGEMENT LLC', cusips: ['19260Q107', '46438F101', '594972408'], shares: [45000, 2500000, 120000] },
  ]);
  const primary = files[0] as SourceFile;
  const restated = primary.text.replace(
    '<isAmendment>false</isAmendment>',
    '<isAmendment>true</isAmendment><amendmentInfo><amendmentType>RESTATEMENT</amendmentType></amendmentInfo>',
  );
  const table = (files[1] as SourceFile).text.replace(/<infoTable>\s*<nameOfIssuer>COINBASE[\s\S]*?<\/infoTable>/, '');
  await loadReferenceFiles(
    store,
    '13f',
    [
      { name: 'a.xml', text: restated },
      { name: 't.xml', text: table },
    ],
    { now: 3000 },
  );
  assert.deepEqual(await q(read), [
    { filer_name: 'ALPHA CAPITAL MANAGEMENT LLC', cusips: ['46438F101', '594972408'], shares: [2500000, 120000] },
  ]);
});
