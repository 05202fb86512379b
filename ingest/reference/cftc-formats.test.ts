import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parseCot, type CotRecord } from './cot.ts';
import { COT_COLUMNS } from './cot-columns.ts';
import { unpackSource } from './load.ts';
import { isZip, readSingleMember } from './zip.ts';
import { zip } from './testing/zip-writer.ts';

const raw = (name: string): Buffer => readFileSync(new URL(`./fixtures/${name}`, import.meta.url));
const TFF = 'cftc_tff_futures_only_2026_slice.txt';
const LEGACY = 'cftc_legacy_futures_only_2025_slice.txt';

/** The headed rows with the line numbers they would have without the header line. */
const shifted = (rows: readonly CotRecord[]): CotRecord[] => rows.map((r) => ({ ...r, line: r.line - 1 }));

test('column order kept as data: the fixture header rows, 87 (TFF) and 129 (Legacy) columns; 191 (Disaggregated)', () => {
  assert.equal(COT_COLUMNS.tff?.length, 87);
  assert.equal(COT_COLUMNS.legacy?.length, 129);
  assert.equal(COT_COLUMNS.tff?.[86], 'FutOnly_or_Combined');
  assert.equal(COT_COLUMNS.legacy?.[7], 'Open Interest (All)');
  assert.equal(COT_COLUMNS.disaggregated?.length, 191);
  assert.equal(new Set(COT_COLUMNS.disaggregated).size, 191, 'no column name twice');
});

/**
 * A current-week Disaggregated line (f_disagg.txt) laid out by hand from the CFTC's variable list, independently of
 * COT_COLUMNS: 1-based columns 8 open interest, 9-10 producer/merchant long/short, 11-13 swap long/short/spread,
 * 14-16 managed money, 17-19 other reportables, 22-23 non-reportables, 186 contract units, 191 FutOnly_or_Combined.
 */
function disaggregatedLine(): string {
  const f: string[] = Array.from({ length: 191 }, (_, i) => String(9000 + i));
  f[0] = '"GOLD - COMMODITY EXCHANGE INC."';
  f[1] = '260317';
  f[2] = '2026-03-17';
  f[3] = '088691';
  f[4] = '"CMX"';
  f[5] = '"00"';
  f[6] = '"088"';
  [
    [8, 500000],
    [9, 61000],
    [10, 182000],
    [11, 24000],
    [12, 71000],
    [13, 9000],
    [14, 160000],
    [15, 38000],
    [16, 41000],
    [17, 47000],
    [18, 33000],
    [19, 12000],
    [22, 28000],
    [23, 31000],
  ].forEach(([col, v]) => {
    f[(col ?? 1) - 1] = String(v).padStart(9);
  });
  f[185] = '"(CONTRACTS OF 100 TROY OUNCES)"';
  f[190] = '"FutOnly"';
  return f.join(',');
}

test('headerless Disaggregated (f_disagg.txt, 191 columns): by column count and by flag, numbers from their columns', () => {
  const text = `${disaggregatedLine()}\n`;
  for (const r of [parseCot(text, 'f_disagg.txt', 'combined'), parseCot(text, 'f_disagg.txt', 'combined', 'disaggregated')]) {
    assert.deepEqual(r.errors, []);
    const row = r.rows[0];
    assert.equal(row?.report, 'disaggregated');
    assert.equal(row?.variant, 'futures_only', 'from its FutOnly_or_Combined column');
    assert.equal(row?.marketCode, '088691');
    assert.equal(row?.reportDate, '2026-03-17');
    assert.equal(row?.openInterest, 500000);
    assert.equal(row?.contractUnits, '(CONTRACTS OF 100 TROY OUNCES)');
    // categories: producer/merchant, swap, managed money, other reportables, non-reportables
    assert.deepEqual(row?.long, [61000, 24000, 160000, 47000, 28000]);
    assert.deepEqual(row?.short, [182000, 71000, 38000, 33000, 31000]);
    assert.deepEqual(row?.spread, [null, 9000, 41000, 12000, null]);
  }
  assert.equal(parseCot(text, 'f.txt', 'combined', 'tff').errors[0]?.message, 'expected 87 fields, found 191');
});

test('headerless current-week text: the same rows as the headed slice, report by flag or by column count', () => {
  for (const [headed, report] of [
    [TFF, 'tff'],
    [LEGACY, 'legacy'],
  ] as const) {
    const want = parseCot(raw(headed).toString('utf8'), 'f.txt', 'combined');
    assert.deepEqual(want.errors, []);
    const text = raw(`headerless_${headed}`).toString('utf8');
    const byCount = parseCot(text, 'f.txt', 'combined');
    assert.deepEqual(byCount.errors, []);
    assert.equal(byCount.rows.length, want.rows.length);
    assert.deepEqual(byCount.rows, shifted(want.rows));
    assert.deepEqual(parseCot(text, 'f.txt', 'combined', report).rows, shifted(want.rows));
  }
  const tff = parseCot(raw(`headerless_${TFF}`).toString('utf8'), 'w.txt');
  assert.equal(tff.rows.length, 118);
  assert.equal(tff.rows[0]?.line, 1, "line numbers are the file's own");
});

test('headerless: wrong report flag, unknown column count, bad row line numbers', () => {
  const text = raw(`headerless_${TFF}`).toString('utf8');
  assert.deepEqual(parseCot(text, 'w.txt', 'futures_only', 'legacy').errors[0], {
    file: 'w.txt',
    line: 1,
    message: 'expected 129 fields, found 87',
  });
  const short = '"BITCOIN - CME",2026-03-17,133741,  100\n';
  assert.deepEqual(parseCot(short, 's.txt').errors, [
    {
      file: 's.txt',
      line: 1,
      message: 'headerless CFTC file: 4 fields match no known report (tff 87, legacy 129, disaggregated 191); use the yearly (headed) file',
    },
  ]);
  assert.equal(parseCot(short, 'd.txt', 'futures_only', 'disaggregated').errors[0]?.message, 'expected 191 fields, found 4');
  const lines = text.split('\n');
  const bad = [lines[0], lines[1]?.replace(',2026-03-10,', ',2026-02-30,'), ...lines.slice(2)].join('\n');
  assert.deepEqual(parseCot(bad, 'b.txt').errors, [{ file: 'b.txt', line: 2, message: "bad report date '2026-02-30'" }]);
  const headed = raw(TFF).toString('utf8');
  assert.equal(parseCot(headed, 'h.txt', 'futures_only', 'legacy').errors[0]?.message, 'a tff file, not legacy');
});

test("zip: the yearly archive's one member, stored or deflated, parses like the text", () => {
  const text = raw(LEGACY);
  const want = parseCot(text.toString('utf8'), 'annual.txt');
  for (const method of [0, 8] as const) {
    const bytes = zip([{ name: 'annual.txt', data: text, method }]);
    assert.ok(isZip(bytes));
    const member = readSingleMember(bytes);
    assert.ok(typeof member !== 'string', String(member));
    assert.equal(member.name, 'annual.txt');
    assert.ok(member.bytes.equals(text));
    const source = unpackSource({ name: 'deacot2025.zip', text: bytes.toString('utf8'), bytes });
    assert.ok(!('message' in source));
    assert.equal(source.name, 'deacot2025.zip:annual.txt');
    assert.deepEqual(parseCot(source.text, 'annual.txt').rows, want.rows);
  }
  // A directory entry beside the one file is not a second member.
  const withDir = zip([
    { name: 'dir/', data: Buffer.alloc(0), method: 0 },
    { name: 'dir/FinFutYY.txt', data: raw(TFF) },
  ]);
  const m = readSingleMember(withDir);
  assert.equal(typeof m === 'string' ? m : m.name, 'dir/FinFutYY.txt');
});

test('zip: malformed archives are a clear file-level error, never a throw', () => {
  const data = raw(TFF);
  const good = zip([{ name: 'FinFutYY.txt', data }]);
  const cases: [string, Buffer, RegExp][] = [
    ['truncated', good.subarray(0, Math.floor(good.length / 2)), /no end-of-central-directory record/],
    ['tiny', good.subarray(0, 10), /no end-of-central-directory record/],
    [
      'two members',
      zip([
        { name: 'a.txt', data },
        { name: 'b.txt', data },
      ]),
      /holds 2 files \(a\.txt, b\.txt\); expected exactly one/,
    ],
    ['empty', zip([]), /holds 0 files/],
    ['encrypted', zip([{ name: 'a.txt', data, flags: 1 }]), /a\.txt is encrypted/],
  ];
  const corrupt = Buffer.from(good);
  corrupt[60] = (corrupt[60] ?? 0) ^ 0xff; // a byte of the deflated data
  cases.push(['corrupt data', corrupt, /does not inflate|fails its CRC-32|bytes, the directory says/]);
  const method = Buffer.from(good);
  method.writeUInt16LE(12, good.length - 22 - 46 - 'FinFutYY.txt'.length + 10); // bzip2 in the central entry
  cases.push(['bzip2', method, /compression method 12 not read/]);
  for (const [what, bytes, want] of cases) {
    const got = readSingleMember(bytes);
    assert.equal(typeof got, 'string', what);
    assert.match(got as string, want, what);
    const source = unpackSource({ name: 'x.zip', text: '', bytes });
    assert.ok('message' in source && source.file === 'x.zip' && source.line === 1, what);
  }
  assert.deepEqual(unpackSource({ name: 'y.zip', text: 'plain', bytes: Buffer.from('plain') }), {
    file: 'y.zip',
    line: 1,
    message: 'not a ZIP archive (no PK header)',
  });
  const plain = { name: 'FinFutWk.txt', text: 'x', bytes: Buffer.from('x') };
  assert.equal(unpackSource(plain), plain);
});
