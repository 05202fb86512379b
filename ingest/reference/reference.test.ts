import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parseCot, normaliseHeader } from './cot.ts';
import { parseEtfFlows, isClosedFixedDay } from './etf.ts';
import { parse13fCover, parse13fFiles, parse13fTable, valueUnit } from './thirteenf.ts';
import { splitCsvLine } from './csv.ts';

const fx = (name: string): string => readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8');
const TFF = 'cftc_tff_futures_only_2026_slice.txt';
const LEGACY = 'cftc_legacy_futures_only_2025_slice.txt';

test('csv: quoted commas and doubled quotes', () => {
  assert.deepEqual(splitCsvLine('"A, B",1,"say ""x""",'), ['A, B', '1', 'say "x"', '']);
});

test('COT TFF: every row of the real slice, keyed on the contract market code, space-padded numbers', () => {
  const r = parseCot(fx(TFF), TFF);
  assert.deepEqual(r.errors, []);
  assert.equal(r.rows.length, 118);
  const btc = r.rows.find((x) => x.marketCode === '133741' && x.reportDate === '2026-03-17');
  assert.ok(btc);
  assert.equal(btc.report, 'tff');
  assert.equal(btc.variant, 'futures_only');
  assert.deepEqual(btc.categories, ['dealer', 'asset_mgr', 'lev_money', 'other_rept', 'nonrept']);
  assert.equal(btc.spread[4], null, 'non-reportable has no spread column');
  // The micro contracts change commodity code mid-file (180 -> 133): still one market, 11 weeks.
  assert.equal(r.rows.filter((x) => x.marketCode === '133742').length, 11);
  const cad = r.rows.find((x) => x.marketCode === '090741' && x.reportDate === '2026-03-17');
  assert.ok(cad);
  assert.equal(cad.openInterest, 247753);
  assert.deepEqual(cad.long, [44757, 75094, 26293, 13761, 29911]);
  assert.deepEqual(cad.short, [54576, 45026, 64145, 1478, 24591]);
  assert.deepEqual(cad.spread, [45363, 5195, 6833, 546, null]);
  assert.equal(cad.contractUnits, '(CONTRACTS OF CAD 100,000)');
  assert.ok(
    r.rows.some((x) => x.marketName === 'NANO ETHER - COINBASE DERIVATIVES, LLC'),
    'quoted comma in a name',
  );
});

test('COT Legacy: human-readable headers, spreading only for non-commercials, variant from the caller', () => {
  const r = parseCot(fx(LEGACY), LEGACY, 'combined');
  assert.deepEqual(r.errors, []);
  assert.equal(r.rows.length, 40);
  const btc = r.rows.find((x) => x.marketCode === '133741' && x.reportDate === '2025-03-11');
  assert.ok(btc);
  assert.equal(btc.report, 'legacy');
  assert.equal(btc.variant, 'combined');
  assert.equal(btc.openInterest, 28545);
  assert.deepEqual(btc.long, [24485, 745, 1114]);
  assert.deepEqual(btc.short, [22956, 2046, 1342]);
  assert.deepEqual(btc.spread, [2201, null, null]);
});

test('COT: suppressed "." is null, a bad number is an error with file and line, a duplicate market-week too', () => {
  const lines = fx(TFF).split('\n');
  const fields = splitCsvLine(lines[1] as string);
  const dot = [...fields];
  dot[10] = '.'; // Dealer_Positions_Spread_All suppressed
  const bad = [...fields];
  bad[8] = ' 12x';
  const quote = (f: string[]) => f.map((v, i) => (i === 0 || i === 81 ? `"${v}"` : v)).join(',');
  const text = [lines[0], quote(dot), lines[2], quote(bad), lines[2]].join('\n');
  const r = parseCot(text, 'x.txt');
  assert.equal(r.rows.length, 2);
  assert.equal(r.rows[0]?.spread[0], null);
  assert.equal(r.errors.length, 2);
  assert.deepEqual(r.errors[0], { file: 'x.txt', line: 4, message: "bad dealer_positions_long_all ' 12x'" });
  assert.match(r.errors[1]?.message ?? '', /already on line 3/);
  assert.equal(r.errors[1]?.line, 5);
});

test('COT: Disaggregated column names (double underscore of the published Swap columns) and FutOnly_or_Combined', () => {
  const cols = [
    'Market_and_Exchange_Names',
    'Report_Date_as_YYYY-MM-DD',
    'CFTC_Contract_Market_Code',
    'Open_Interest_All',
    'Prod_Merc_Positions_Long_All',
    'Prod_Merc_Positions_Short_All',
    'Swap_Positions_Long_All',
    'Swap__Positions_Short_All',
    'Swap__Positions_Spread_All',
    'M_Money_Positions_Long_All',
    'M_Money_Positions_Short_All',
    'M_Money_Positions_Spread_All',
    'Other_Rept_Positions_Long_All',
    'Other_Rept_Positions_Short_All',
    'Other_Rept_Positions_Spread_All',
    'NonRept_Positions_Long_All',
    'NonRept_Positions_Short_All',
    'FutOnly_or_Combined',
  ];
  assert.equal(normaliseHeader('Swap__Positions_Short_All'), 'swap_positions_short_all');
  const row =
    '"CRUDE OIL - NYMEX",2026-03-17,067651,  1000,   100,   200,    10,    20,     5,   300,   150,    30,    40,    50,     6,    70,    80,"Combined"';
  const r = parseCot(`${cols.map((c) => `"${c}"`).join(',')}\n${row}\n`, 'f.txt');
  assert.deepEqual(r.errors, []);
  assert.equal(r.rows[0]?.report, 'disaggregated');
  assert.equal(r.rows[0]?.variant, 'combined');
  assert.deepEqual(r.rows[0]?.long, [100, 10, 300, 40, 70]);
  assert.deepEqual(r.rows[0]?.spread, [null, 5, 30, 6, null]);
  assert.match(parseCot('"a","b"\n1,2\n', 'n.txt').errors[0]?.message ?? '', /not a CFTC COT file/);
});

test('ETF BTC: spurious 2024-01-01 row and all-zero holidays skipped and reported; totals checked', () => {
  const f = 'etf_flows_us_btc_usd_millions.csv';
  const r = parseEtfFlows(fx(f), f);
  assert.deepEqual(r.errors, []);
  assert.equal(r.rows.length, 655);
  assert.equal(r.rows[0]?.date, '2024-01-11');
  assert.deepEqual(r.skipped[0], { file: f, line: 2, reason: '2024-01-01: spurious row on a day US markets are closed' });
  const holidays = r.skipped.filter((s) => s.reason.includes('holiday'));
  assert.equal(holidays.length, 16);
  assert.equal(holidays[0]?.reason, '2024-01-15: all-zero row (market holiday)');
  assert.ok(!r.rows.some((d) => d.date === '2025-01-09'), 'national day of mourning (all-zero) skipped');
  assert.equal(r.rows[1]?.funds[0], 'IBIT');
  assert.equal(r.rows[1]?.flows[0], 386);
  assert.equal(r.rows[1]?.total, 203);
});

test('ETF ETH: the misnamed total column COL11 is the total', () => {
  const f = 'etf_flows_us_eth_usd_millions.csv';
  const r = parseEtfFlows(fx(f), f);
  assert.deepEqual(r.errors, []);
  assert.equal(r.rows[0]?.date, '2024-07-23');
  assert.equal(r.rows[0]?.funds.length, 10);
  assert.equal(r.rows[0]?.total, 106.6);
  assert.ok(!r.rows[0]?.funds.includes('COL11'));
});

test('ETF: a total that is not the sum, a bad number and a duplicate date are errors with their lines', () => {
  const text = 'date,AAA,BBB,Total\n2026-03-02,1,2,3\n2026-03-03,1,2,4\n2026-03-04,1,x,3\n2026-03-02,5,5,10\n';
  const r = parseEtfFlows(text, 'e.csv');
  assert.deepEqual(
    r.errors.map((e) => e.line),
    [3, 4, 5],
  );
  assert.match(r.errors[0]?.message ?? '', /differs from the sum/);
  assert.match(r.errors[2]?.message ?? '', /already on line 2/);
  assert.match(parseEtfFlows('date,AAA,Flows\n', 'h.csv').errors[0]?.message ?? '', /last column must be the total/);
  // A non-zero row repeating the next day exactly is spurious even on a trading day.
  const dup = parseEtfFlows('date,AAA,BBB,Total\n2026-03-02,1,2,3\n2026-03-03,1,2,3\n', 'd.csv');
  assert.equal(dup.rows.length, 1);
  assert.equal(dup.rows[0]?.date, '2026-03-03');
  assert.equal(isClosedFixedDay('2026-03-07'), true); // Saturday
  assert.equal(isClosedFixedDay('2026-07-04'), true);
  assert.equal(isClosedFixedDay('2026-03-06'), false);
});

test('ETF Hong Kong: the HKEX fixed-date holidays, not the NYSE ones, decide a spurious row', () => {
  assert.equal(isClosedFixedDay('2025-07-04', 'hk'), false, 'a Friday HKEX trades');
  assert.equal(isClosedFixedDay('2025-07-01', 'hk'), true, 'HKSAR Establishment Day');
  assert.equal(isClosedFixedDay('2025-07-01', 'us'), false);
  assert.equal(isClosedFixedDay('2025-12-26', 'hk'), true);
  const text =
    'date,3042.HK,3439.HK,3008.HK,Total\n2025-06-30,1.2,0.5,-0.3,1.4\n2025-07-01,2.0,0.1,0.1,2.2\n2025-07-02,0,0,0,0\n2025-07-04,-0.8,0.4,0,-0.4\n';
  const r = parseEtfFlows(text, 'hk.csv', 'hk');
  assert.deepEqual(r.errors, []);
  assert.deepEqual(
    r.rows.map((d) => [d.date, d.total]),
    [
      ['2025-06-30', 1.4],
      ['2025-07-04', -0.4],
    ],
  );
  assert.deepEqual(
    r.skipped.map((k) => k.reason),
    ['2025-07-01: spurious row on a day Hong Kong markets are closed', '2025-07-02: all-zero row (market holiday)'],
  );
  assert.deepEqual(
    parseEtfFlows(text, 'us.csv').rows.map((d) => d.date),
    ['2025-06-30', '2025-07-01'],
    'the same file read as US funds',
  );
});

const cover = { cik: '0000000001', filerName: 'X', periodEnd: '2021-09-30', kind: 'original' as const };

test('13F: real pre-2023 table in whole dollars (the unit trap) stays in dollars; SEC sample read as thousands', () => {
  const real = parse13fTable(fx('sec_13f_real_infotable_q3_2021_slice.xml'), 'r.xml', cover);
  assert.deepEqual(real.errors, []);
  assert.equal(real.rows[0]?.unit, 'dollars');
  const mmm = real.rows[0]?.holdings.find((h) => h.cusip === '88579Y101');
  assert.deepEqual(mmm, { cusip: '88579Y101', issuer: '3M CO', shares: 2334, valueUsd: 409469 });
  const sample = parse13fTable(fx('sec_13f_sample_information_table_slice.xml'), 's.xml', cover);
  assert.deepEqual(sample.errors, []);
  assert.equal(sample.rows[0]?.unit, 'thousands');
  const adobe = sample.rows[0]?.holdings.find((h) => h.cusip === '00724F101');
  assert.deepEqual(adobe, { cusip: '00724F101', issuer: 'ADOBE INC', shares: 22507, valueUsd: 7_423_000 });
  const post = parse13fTable(fx('sec_13f_sample_information_table_slice.xml'), 's.xml', { ...cover, periodEnd: '2023-03-31' });
  assert.equal(post.rows[0]?.unit, 'dollars', 'from 2023 the unit is dollars by rule');
  assert.equal(
    valueUnit('2022-12-31', [
      { shares: 10, value: 1 },
      { shares: 10, value: 2 },
      { shares: 10, value: 100 },
    ]),
    'thousands',
  );
  assert.equal(
    valueUnit('2022-12-31', [
      { shares: 10, value: 1 },
      { shares: 10, value: 20 },
      { shares: 10, value: 100 },
    ]),
    'dollars',
  );
});

test('13F: primary document gives filer and period; prefixed namespaces; put and PRN rows skipped; CUSIP rows summed', () => {
  const c = parse13fCover(fx('sec_13f_real_primarydoc.xml'), 'p.xml');
  assert.deepEqual(c, { cik: '0001099219', filerName: 'METLIFE INC', periodEnd: '2021-12-31', kind: 'original' });
  const files = [
    'alpha_2026q1_primary',
    'alpha_2026q1_infotable',
    'beta_2026q1_primary',
    'beta_2026q1_infotable',
    'gamma_2026q1_primary',
    'gamma_2026q1_infotable',
  ].map((n) => ({ name: n, text: fx(`sec_13f_synthetic_${n}.xml`) }));
  const r = parse13fFiles(files);
  assert.deepEqual(r.errors, []);
  assert.deepEqual(
    r.rows.map((f) => [f.filerName, f.periodEnd, f.unit]),
    [
      ['ALPHA CAPITAL MANAGEMENT LLC', '2026-03-31', 'dollars'],
      ['BETA ADVISORS LP', '2026-03-31', 'dollars'],
      ['GAMMA FUND & PARTNERS', '2026-03-31', 'dollars'],
    ],
  );
  assert.deepEqual(
    r.skipped.map((s) => [s.file, s.line]),
    [
      ['alpha_2026q1_infotable', 19],
      ['beta_2026q1_infotable', 19],
    ],
  );
  assert.deepEqual(
    r.rows[0]?.holdings.find((h) => h.cusip === '594972408'),
    { cusip: '594972408', issuer: 'MICROSTRATEGY INC', shares: 120000, valueUsd: 42_000_000 },
  );
  assert.deepEqual(
    r.rows[2]?.holdings.find((h) => h.cusip === '594972408'),
    { cusip: '594972408', issuer: 'MICROSTRATEGY INC', shares: 10000, valueUsd: 3_500_000 },
  );
});

test('13F: bad positions are errors with the infoTable line; a table without a primary document is refused', () => {
  const xml = fx('sec_13f_synthetic_beta_2026q1_infotable.xml')
    .replace('<ns1:cusip>770700102', '<ns1:cusip>77070010X')
    .replace('<ns1:sshPrnamt>40000', '<ns1:sshPrnamt>-4');
  const r = parse13fTable(xml, 'b.xml', { ...cover, periodEnd: '2026-03-31' });
  assert.deepEqual(r.rows, []);
  assert.deepEqual(r.errors, [
    { file: 'b.xml', line: 3, message: "bad sshPrnamt '-4'" },
    { file: 'b.xml', line: 35, message: "bad cusip '77070010X'" },
  ]);
  const orphan = parse13fFiles([{ name: 't.xml', text: xml }]);
  assert.match(orphan.errors[0]?.message ?? '', /without a primary document/);
  const lonely = parse13fFiles([{ name: 'p.xml', text: fx('sec_13f_real_primarydoc.xml') }]);
  assert.match(lonely.errors[0]?.message ?? '', /without an information table/);
  const amended = fx('sec_13f_real_primarydoc.xml').replace(
    '<isAmendment>false</isAmendment>',
    '<isAmendment>true</isAmendment><amendmentInfo><amendmentType>RESTATEMENT</amendmentType></amendmentInfo>',
  );
  assert.equal((parse13fCover(amended, 'a.xml') as { kind: string }).kind, 'restatement');
});
