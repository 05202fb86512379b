import { childText, elements } from './xml.ts';
import { decimal, isoDate, type ParseResult, type RowError, type SkippedRow } from './types.ts';

/**
 * SEC Form 13F: the primary document (cover page: filer CIK and name, period of report, amendment) and the
 * information table (one `infoTable` per position), in either namespace style. Values: whole dollars for
 * periods from 2023-01-01; before that the rule was thousands of dollars, but real filers often reported
 * whole dollars anyway. A pre-2023 table is read as thousands unless its median value per share is >= 1
 * (>= $1,000 per share if it were thousands, implausible for a portfolio's median; whole dollars put it at
 * the share price). Only share positions (SH) without put/call are holdings; positions of one CUSIP are summed.
 */

export interface ThirteenFCover {
  readonly cik: string;
  readonly filerName: string;
  /** YYYY-MM-DD, the quarter end the filing reports. */
  readonly periodEnd: string;
  /** `restatement` (replaces the original), `new_holdings` (adds to it), or `original`. */
  readonly kind: 'original' | 'restatement' | 'new_holdings';
}

export interface Holding {
  readonly cusip: string;
  readonly issuer: string;
  readonly shares: number;
  /** Whole US dollars. */
  readonly valueUsd: number;
}

export interface ThirteenFFiling extends ThirteenFCover {
  /** Unit the information table's `value` was read in. */
  readonly unit: 'dollars' | 'thousands';
  readonly holdings: readonly Holding[];
}

const CUSIP = /^[0-9A-Z]{8}[0-9]$/;

/** The cover page of a primary document, or the reason it is not one. */
export function parse13fCover(xml: string, file: string): ThirteenFCover | RowError {
  const fail = (message: string): RowError => ({ file, line: 1, message });
  if (elements(xml, 'edgarSubmission').length === 0) return fail('not a 13F primary document (no edgarSubmission)');
  const cik = childText(xml, 'cik') ?? '';
  if (!/^\d{1,10}$/.test(cik)) return fail(`bad filer CIK '${cik}'`);
  const period = childText(xml, 'periodOfReport') ?? childText(xml, 'reportCalendarOrQuarter') ?? '';
  const m = /^(\d{2})-(\d{2})-(\d{4})$/.exec(period);
  const periodEnd = m === null ? null : isoDate(`${m[3]}-${m[1]}-${m[2]}`);
  if (periodEnd === null) return fail(`bad periodOfReport '${period}' (MM-DD-YYYY)`);
  const manager = elements(xml, 'filingManager')[0];
  const filerName = manager === undefined ? '' : (childText(manager.inner, 'name') ?? '');
  if (filerName === '') return fail('no filingManager name');
  const amendment = childText(xml, 'isAmendment')?.toLowerCase() === 'true';
  const type = (childText(xml, 'amendmentType') ?? '').toUpperCase();
  const kind = !amendment ? 'original' : type.startsWith('NEW') ? 'new_holdings' : 'restatement';
  return { cik: cik.padStart(10, '0'), filerName, periodEnd, kind };
}

interface Position {
  readonly cusip: string;
  readonly issuer: string;
  readonly shares: number;
  readonly value: number;
  readonly counted: boolean;
}

function position(inner: string): Position | string {
  const cusip = (childText(inner, 'cusip') ?? '').toUpperCase();
  if (!CUSIP.test(cusip)) return `bad cusip '${cusip}'`;
  const value = decimal(childText(inner, 'value') ?? '');
  if (value === null || value < 0) return `bad value '${childText(inner, 'value') ?? ''}'`;
  const amount = elements(inner, 'shrsOrPrnAmt')[0]?.inner ?? '';
  const shares = decimal(childText(amount, 'sshPrnamt') ?? '');
  if (shares === null || shares < 0) return `bad sshPrnamt '${childText(amount, 'sshPrnamt') ?? ''}'`;
  const type = childText(amount, 'sshPrnamtType') ?? '';
  if (type !== 'SH' && type !== 'PRN') return `bad sshPrnamtType '${type}' (SH or PRN)`;
  const putCall = childText(inner, 'putCall') ?? '';
  if (putCall !== '' && putCall !== 'Put' && putCall !== 'Call') return `bad putCall '${putCall}'`;
  return { cusip, issuer: childText(inner, 'nameOfIssuer') ?? '', shares, value, counted: type === 'SH' && putCall === '' };
}

/** thousands or dollars for a table of this period (see the file comment). */
export function valueUnit(periodEnd: string, positions: readonly { shares: number; value: number }[]): 'dollars' | 'thousands' {
  if (periodEnd >= '2023-01-01') return 'dollars';
  const ratios = positions
    .filter((p) => p.shares > 0)
    .map((p) => p.value / p.shares)
    .sort((a, b) => a - b);
  if (ratios.length === 0) return 'thousands';
  const mid = ratios.length >> 1;
  const median = ratios.length % 2 === 1 ? (ratios[mid] as number) : ((ratios[mid - 1] as number) + (ratios[mid] as number)) / 2;
  return median >= 1 ? 'dollars' : 'thousands';
}

/** One information table read for the cover's period: holdings by CUSIP (sorted), every infoTable validated. */
export function parse13fTable(xml: string, file: string, cover: ThirteenFCover): ParseResult<ThirteenFFiling> {
  const errors: RowError[] = [];
  const skipped: SkippedRow[] = [];
  const positions: Position[] = [];
  const tables = elements(xml, 'infoTable');
  if (elements(xml, 'informationTable').length === 0)
    errors.push({ file, line: 1, message: 'not a 13F information table (no informationTable)' });
  for (const el of tables) {
    const p = position(el.inner);
    if (typeof p === 'string') errors.push({ file, line: el.line, message: p });
    else if (!p.counted) skipped.push({ file, line: el.line, reason: `${p.cusip}: option or principal-amount position, not shares held` });
    else positions.push(p);
  }
  if (errors.length > 0) return { rows: [], errors, skipped };
  const unit = valueUnit(cover.periodEnd, positions);
  const scale = unit === 'thousands' ? 1000 : 1;
  const byCusip = new Map<string, { issuer: string; shares: number; valueUsd: number }>();
  for (const p of positions) {
    const h = byCusip.get(p.cusip) ?? { issuer: p.issuer, shares: 0, valueUsd: 0 };
    h.shares += p.shares;
    h.valueUsd += p.value * scale;
    byCusip.set(p.cusip, h);
  }
  const holdings = [...byCusip].sort(([a], [b]) => (a < b ? -1 : 1)).map(([cusip, h]) => ({ cusip, ...h }));
  return { rows: [{ ...cover, unit, holdings }], errors, skipped };
}

/**
 * Files in order: each primary document applies to the information table(s) after it. A table before any
 * primary document, or a primary document without a table, is an error.
 */
export function parse13fFiles(files: readonly { readonly name: string; readonly text: string }[]): ParseResult<ThirteenFFiling> {
  const rows: ThirteenFFiling[] = [];
  const errors: RowError[] = [];
  const skipped: SkippedRow[] = [];
  let cover: { value: ThirteenFCover; file: string; used: boolean } | null = null;
  const closeCover = () => {
    if (cover !== null && !cover.used)
      errors.push({ file: cover.file, line: 1, message: 'primary document without an information table after it' });
  };
  for (const f of files) {
    if (elements(f.text, 'edgarSubmission').length > 0) {
      closeCover();
      const c = parse13fCover(f.text, f.name);
      if ('message' in c) {
        errors.push(c);
        cover = null;
      } else cover = { value: c, file: f.name, used: false };
    } else if (cover === null)
      errors.push({ file: f.name, line: 1, message: 'information table without a primary document (period, filer) before it' });
    else {
      const r = parse13fTable(f.text, f.name, cover.value);
      cover.used = true;
      rows.push(...r.rows);
      errors.push(...r.errors);
      skipped.push(...r.skipped);
    }
  }
  closeCover();
  return { rows, errors, skipped };
}
