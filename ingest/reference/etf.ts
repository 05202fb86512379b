import { splitCsvLine, textLines } from './csv.ts';
import type { EtfRegion } from './targets.ts';
import { decimal, isoDate, type ParseResult, type RowError, type SkippedRow } from './types.ts';

/**
 * Per-fund daily spot-ETF net flow tables in US$ millions (`date,FUND1,...,FUNDn,Total`), as compiled from
 * the public daily flow tables. Known defects handled:
 * - the total column may be misnamed (`COL11`): the last column is the total when it is named `Total` or
 *   `COLnn`; every row's total must equal the sum of its funds (within rounding, 0.05 per fund);
 * - holidays stored as all-zero rows: skipped and reported (a market holiday has no flow, not a zero flow);
 * - a spurious row (e.g. dated 2024-01-01, a copy of the first trading day): a non-zero row on a weekend or
 *   on a fixed-date holiday of the region's exchange (US: 1 January, 4 July, 25 December; Hong Kong: see
 *   FIXED_HOLIDAYS), or whose values repeat the next row's exactly, is skipped and reported.
 */

export interface EtfFlowDay {
  readonly date: string;
  readonly funds: readonly string[];
  /** Net flow per fund, US$ millions, same order as `funds`. */
  readonly flows: readonly number[];
  /** The file's total column, US$ millions (validated against the sum of `flows`). */
  readonly total: number;
  readonly line: number;
}

const TOTAL_COLUMN = /^(total|col\d+)$/i;
const FUND = /^[A-Z0-9.]{1,10}$/;

/**
 * Fixed-date exchange holidays (month-day) on which no fund of the region can trade, whatever the weekday:
 * NYSE 1 Jan, 4 Jul, 25 Dec; HKEX 1 Jan, 1 May (Labour Day), 1 Jul (HKSAR Establishment Day), 1 Oct (National Day),
 * 25 and 26 Dec. Moving holidays (Easter, Lunar New Year, Thanksgiving...) are not listed: a spurious row on one of
 * them is caught only by the repeated-values rule.
 */
const FIXED_HOLIDAYS: Readonly<Record<EtfRegion, readonly string[]>> = {
  us: ['01-01', '07-04', '12-25'],
  hk: ['01-01', '05-01', '07-01', '10-01', '12-25', '12-26'],
};
const REGION_NAME: Readonly<Record<EtfRegion, string>> = { us: 'US', hk: 'Hong Kong' };

/** Weekends and the region's fixed-date exchange holidays: no fund of the region can trade. */
export function isClosedFixedDay(date: string, region: EtfRegion = 'us'): boolean {
  const dow = new Date(`${date}T00:00:00Z`).getUTCDay();
  return dow === 0 || dow === 6 || FIXED_HOLIDAYS[region].includes(date.slice(5));
}

interface Candidate extends EtfFlowDay {
  readonly key: string;
}

function headerOf(line: string, file: string): { funds: string[] } | RowError {
  const names = splitCsvLine(line).map((n) => n.trim());
  if (names[0]?.toLowerCase() !== 'date') return { file, line: 1, message: `first column must be 'date', found '${names[0] ?? ''}'` };
  const last = names.at(-1) ?? '';
  if (!TOTAL_COLUMN.test(last)) return { file, line: 1, message: `last column must be the total (Total or COLnn), found '${last}'` };
  const funds = names.slice(1, -1);
  const bad = funds.filter((f) => !FUND.test(f));
  if (funds.length === 0 || bad.length > 0) return { file, line: 1, message: `bad fund column(s): ${bad.join(', ') || '(none)'}` };
  if (new Set(funds).size !== funds.length) return { file, line: 1, message: 'duplicate fund column' };
  return { funds };
}

function parseDay(fields: string[], funds: string[], line: number): Candidate | string {
  if (fields.length !== funds.length + 2) return `expected ${funds.length + 2} fields, found ${fields.length}`;
  const date = isoDate(fields[0] ?? '');
  if (date === null) return `bad date '${fields[0] ?? ''}'`;
  const values: number[] = [];
  for (let i = 1; i < fields.length; i++) {
    const v = decimal(fields[i] ?? '');
    if (v === null) return `bad number '${fields[i] ?? ''}' in column ${i + 1}`;
    values.push(v);
  }
  const total = values.pop() as number;
  const sum = values.reduce((a, b) => a + b, 0);
  if (Math.abs(sum - total) > 0.05 * funds.length + 1e-9) return `total ${total} differs from the sum of the funds ${sum.toFixed(2)}`;
  return { date, funds, flows: values, total, line, key: values.join(',') + `|${total}` };
}

/** Parses one flow table of a region's funds; rows come out in date order, each date once. */
export function parseEtfFlows(text: string, file: string, region: EtfRegion = 'us'): ParseResult<EtfFlowDay> {
  const lines = textLines(text);
  const header = headerOf(lines[0] ?? '', file);
  if ('message' in header) return { rows: [], errors: [header], skipped: [] };
  const errors: RowError[] = [];
  const skipped: SkippedRow[] = [];
  const days: Candidate[] = [];
  for (let i = 1; i < lines.length; i++) {
    const t = lines[i] ?? '';
    if (t.trim() === '') continue;
    const day = parseDay(splitCsvLine(t), header.funds, i + 1);
    if (typeof day === 'string') errors.push({ file, line: i + 1, message: day });
    else days.push(day);
  }
  days.sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
  const rows: EtfFlowDay[] = [];
  const seen = new Map<string, number>();
  days.forEach((d, i) => {
    const zero = d.total === 0 && d.flows.every((v) => v === 0);
    const next = days[i + 1];
    if (zero) skipped.push({ file, line: d.line, reason: `${d.date}: all-zero row (market holiday)` });
    else if (isClosedFixedDay(d.date, region))
      skipped.push({ file, line: d.line, reason: `${d.date}: spurious row on a day ${REGION_NAME[region]} markets are closed` });
    else if (next !== undefined && next.key === d.key)
      skipped.push({ file, line: d.line, reason: `${d.date}: spurious row repeating ${next.date} (line ${next.line})` });
    else if (seen.has(d.date)) errors.push({ file, line: d.line, message: `date ${d.date} already on line ${seen.get(d.date) ?? 0}` });
    else {
      seen.set(d.date, d.line);
      rows.push({ date: d.date, funds: d.funds, flows: d.flows, total: d.total, line: d.line });
    }
  });
  return { rows, errors, skipped };
}
