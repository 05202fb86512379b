import { COT_COLUMNS } from './cot-columns.ts';
import { splitCsvLine, textLines } from './csv.ts';
import { decimal, isoDate, type ParseResult, type RowError } from './types.ts';
import type { CotReport, CotVariant, CotWeek } from '#schemas/reference.ts';

/**
 * CFTC Commitments of Traders files as the CFTC publishes them (comma-separated, quoted names, space-padded
 * numbers, a bare `.` for a suppressed value): Traders in Financial Futures (FinFutYY.txt, underscored column
 * names), Legacy (annual.txt, human-readable names) and Disaggregated (f_year.txt), futures only or combined.
 * Column names are normalised (lower case, runs of other characters -> `_`), so `Open Interest (All)`,
 * `Open_Interest_All` and the Disaggregated file's `Swap__Positions_Short_All` all match.
 */

export type { CotReport, CotVariant } from '#schemas/reference.ts';

/** Trader categories per report, in the CFTC's order. */
export const COT_CATEGORIES: Readonly<Record<CotReport, readonly string[]>> = {
  tff: ['dealer', 'asset_mgr', 'lev_money', 'other_rept', 'nonrept'],
  legacy: ['noncommercial', 'commercial', 'nonreportable'],
  disaggregated: ['prod_merc', 'swap', 'm_money', 'other_rept', 'nonrept'],
};

/** Categories the CFTC publishes a spreading column for (the others: long and short only). */
const WITH_SPREAD: Readonly<Record<CotReport, ReadonlySet<string>>> = {
  tff: new Set(['dealer', 'asset_mgr', 'lev_money', 'other_rept']),
  legacy: new Set(['noncommercial']),
  disaggregated: new Set(['swap', 'm_money', 'other_rept']),
};

export interface CotRecord extends CotWeek {
  readonly contractUnits: string;
  /** Per category; null = suppressed or no spreading column for that category. */
  readonly spread: readonly (number | null)[];
  readonly line: number;
}

export const normaliseHeader = (h: string): string =>
  h
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');

export function detectReport(columns: ReadonlySet<string>): CotReport | null {
  if (columns.has('dealer_positions_long_all')) return 'tff';
  if (columns.has('m_money_positions_long_all')) return 'disaggregated';
  if (columns.has('noncommercial_positions_long_all')) return 'legacy';
  return null;
}

function columnNames(report: CotReport, category: string): { long: string; short: string; spread: string | null } {
  const legacy = report === 'legacy';
  return {
    long: `${category}_positions_long_all`,
    short: `${category}_positions_short_all`,
    spread: !WITH_SPREAD[report].has(category) ? null : `${category}_positions_${legacy ? 'spreading' : 'spread'}_all`,
  };
}

const DATE_COLUMNS = ['report_date_as_yyyy_mm_dd', 'as_of_date_in_form_yyyy_mm_dd'];

interface Layout {
  readonly report: CotReport;
  readonly index: ReadonlyMap<string, number>;
  readonly width: number;
  readonly dateColumn: string;
}

function layoutOf(header: readonly string[], file: string): Layout | RowError {
  const names = header.map(normaliseHeader);
  const index = new Map(names.map((n, i) => [n, i]));
  const report = detectReport(new Set(names));
  if (report === null)
    return { file, line: 1, message: 'not a CFTC COT file: no Traders in Financial Futures, Legacy or Disaggregated position columns' };
  const dateColumn = DATE_COLUMNS.find((c) => index.has(c));
  const required = ['market_and_exchange_names', 'cftc_contract_market_code', 'open_interest_all'];
  for (const cat of COT_CATEGORIES[report]) {
    const c = columnNames(report, cat);
    required.push(c.long, c.short, ...(c.spread === null ? [] : [c.spread]));
  }
  const missing = required.filter((c) => !index.has(c));
  if (dateColumn === undefined) missing.push('report date (YYYY-MM-DD)');
  if (missing.length > 0) return { file, line: 1, message: `missing column(s): ${missing.join(', ')}` };
  return { report, index, width: names.length, dateColumn: dateColumn as string };
}

/** A position cell: non-negative integer, or null for the CFTC's `.` (suppressed). */
function position(text: string | undefined): number | null | undefined {
  if (text === undefined) return undefined;
  if (text.trim() === '.') return null;
  const v = decimal(text);
  return v !== null && v >= 0 && Number.isInteger(v) ? v : undefined;
}

function parseRecord(fields: string[], layout: Layout, variant: CotVariant, line: number): CotRecord | string {
  if (fields.length !== layout.width) return `expected ${layout.width} fields, found ${fields.length}`;
  const cell = (name: string): string | undefined => {
    const i = layout.index.get(name);
    return i === undefined ? undefined : fields[i];
  };
  const marketCode = (cell('cftc_contract_market_code') ?? '').trim();
  if (!/^[0-9A-Z+]{6}$/.test(marketCode)) return `bad CFTC contract market code '${marketCode}'`;
  const reportDate = isoDate(cell(layout.dateColumn) ?? '');
  if (reportDate === null) return `bad report date '${cell(layout.dateColumn) ?? ''}'`;
  const oi = position(cell('open_interest_all'));
  if (oi === undefined || oi === null) return `bad open interest '${cell('open_interest_all') ?? ''}'`;
  const categories = COT_CATEGORIES[layout.report];
  const long: (number | null)[] = [];
  const short: (number | null)[] = [];
  const spread: (number | null)[] = [];
  for (const cat of categories) {
    const c = columnNames(layout.report, cat);
    const l = position(cell(c.long));
    const s = position(cell(c.short));
    const sp = c.spread === null ? null : position(cell(c.spread));
    if (l === undefined) return `bad ${c.long} '${cell(c.long) ?? ''}'`;
    if (s === undefined) return `bad ${c.short} '${cell(c.short) ?? ''}'`;
    if (sp === undefined) return `bad ${c.spread ?? ''} '${cell(c.spread ?? '') ?? ''}'`;
    long.push(l);
    short.push(s);
    spread.push(sp);
  }
  const fileVariant = (cell('futonly_or_combined') ?? '').trim().toLowerCase();
  return {
    report: layout.report,
    variant: fileVariant === 'combined' ? 'combined' : fileVariant === 'futonly' ? 'futures_only' : variant,
    marketCode,
    marketName: (cell('market_and_exchange_names') ?? '').trim(),
    reportDate,
    openInterest: oi,
    contractUnits: (cell('contract_units') ?? '').trim(),
    categories,
    long,
    short,
    spread,
    line,
  };
}

/** The layout of a file and the index of its first data line: from its header row, or the known column order. */
function layoutOfFile(first: string, file: string, report: CotReport | undefined): { layout: Layout | RowError; start: number } {
  const fields = splitCsvLine(first);
  // A data line: a quoted market name then numbers and dates; a header row has names only.
  const data =
    first.startsWith('"') &&
    normaliseHeader(fields[0] ?? '') !== 'market_and_exchange_names' &&
    fields.slice(1).some((f) => /^\s*[-\d.]+\s*$/.test(f));
  if (!data) return { layout: layoutOf(fields, file), start: 1 };
  const chosen = report ?? (Object.keys(COT_COLUMNS) as CotReport[]).find((r) => COT_COLUMNS[r]?.length === fields.length);
  const columns = chosen === undefined ? undefined : COT_COLUMNS[chosen];
  if (columns === undefined) {
    const why =
      chosen === undefined
        ? `${fields.length} fields match no known report (${(Object.keys(COT_COLUMNS) as CotReport[]).map((r) => `${r} ${COT_COLUMNS[r]?.length ?? 0}`).join(', ')})`
        : `no known column order for ${chosen}`;
    return { layout: { file, line: 1, message: `headerless CFTC file: ${why}; use the yearly (headed) file` }, start: 0 };
  }
  return { layout: layoutOf(columns, file), start: 0 };
}

/**
 * Parses one COT file, with its header row (yearly files) or without (the CFTC's current-week files, read
 * with the column order of `report`, or of the report whose column count the first line has). `variant`
 * applies when the file has no FutOnly_or_Combined column (Legacy and Disaggregated downloads): the caller
 * knows which file it fetched. Every data line is validated; a market and date seen twice in one file is an error.
 */
export function parseCot(text: string, file: string, variant: CotVariant = 'futures_only', report?: CotReport): ParseResult<CotRecord> {
  const lines = textLines(text);
  const { layout, start } = layoutOfFile(lines[0] ?? '', file, report);
  if ('message' in layout) return { rows: [], errors: [layout], skipped: [] };
  if (report !== undefined && layout.report !== report)
    return { rows: [], errors: [{ file, line: 1, message: `a ${layout.report} file, not ${report}` }], skipped: [] };
  const rows: CotRecord[] = [];
  const errors: RowError[] = [];
  const seen = new Map<string, number>();
  for (let i = start; i < lines.length; i++) {
    const text = lines[i] ?? '';
    if (text.trim() === '') continue;
    const rec = parseRecord(splitCsvLine(text), layout, variant, i + 1);
    if (typeof rec === 'string') {
      errors.push({ file, line: i + 1, message: rec });
      continue;
    }
    const key = `${rec.variant}|${rec.marketCode}|${rec.reportDate}`;
    const first = seen.get(key);
    if (first !== undefined) {
      errors.push({ file, line: i + 1, message: `market ${rec.marketCode} on ${rec.reportDate} already on line ${first}` });
      continue;
    }
    seen.set(key, i + 1);
    rows.push(rec);
  }
  return { rows, errors, skipped: [] };
}
