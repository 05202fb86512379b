import { createHash } from 'node:crypto';
import type { Store } from '#clickhouse/store.ts';
import { parseCot, type CotRecord, type CotReport, type CotVariant } from './cot.ts';
import { parseEtfFlows, type EtfFlowDay } from './etf.ts';
import { etfTargetFromName, isServedTarget, type EtfTarget } from './targets.ts';
import { parse13fFiles, type ThirteenFFiling } from './thirteenf.ts';
import type { ParseResult, RowError, SkippedRow } from './types.ts';
import { isZip, readSingleMember } from './zip.ts';

/**
 * The batch loader role: parse reference files, validate every row, write the units they cover to
 * ClickHouse (migration 030). A file with any invalid row is refused whole (its errors name file and
 * line) and nothing of it is written; the other files load. Rows carry `loaded_at` so the newest load of a
 * key wins (ReplacingMergeTree): a reload changes nothing, a corrected file replaces what it covers.
 */

export type ReferenceKind = 'etf' | 'cot' | '13f';

export interface SourceFile {
  readonly name: string;
  readonly text: string;
  /** The raw bytes, when read as bytes (a ZIP archive is recognised from them and its one member parsed). */
  readonly bytes?: Uint8Array;
}

export interface LoadOptions {
  /** Load time (ms), the version of the written rows. Default Date.now(). */
  readonly now?: number;
  /** ETF: region and asset when the file name does not say (etf_flows_<region>_<asset>...). */
  readonly etfTarget?: EtfTarget;
  /** COT: futures_only or combined, for files without a FutOnly_or_Combined column. */
  readonly cotVariant?: CotVariant;
  /** COT: the report of a headerless current-week file (default: by its column count). */
  readonly cotReport?: CotReport;
  /** Progress lines (stderr in the CLI). */
  readonly progress?: (line: string) => void;
  /** Rows per INSERT (progress is reported after each). Default 5000. */
  readonly batchRows?: number;
}

export interface FileReport {
  readonly file: string;
  /** Units written: ETF days, COT market-weeks, 13F filings. */
  readonly written: number;
  readonly skipped: readonly SkippedRow[];
  readonly errors: readonly RowError[];
}

const etfRow = (t: EtfTarget, d: EtfFlowDay, file: string, now: number) => ({
  region: t.region,
  asset: t.asset,
  date: d.date,
  funds: d.funds,
  flows_usd_m: d.flows,
  total_usd_m: d.total,
  source_file: file,
  loaded_at: now,
});

const cotRow = (r: CotRecord, file: string, now: number) => ({
  market_code: r.marketCode,
  report: r.report,
  variant: r.variant,
  report_date: r.reportDate,
  market_name: r.marketName,
  contract_units: r.contractUnits,
  open_interest: r.openInterest,
  categories: r.categories,
  long: r.long,
  short: r.short,
  spread: r.spread,
  source_file: file,
  loaded_at: now,
});

/** A restatement replaces the filing (part ''); a new-holdings amendment is its own part, keyed by its content. */
const filingRow = (f: ThirteenFFiling, file: string, now: number) => ({
  filer_cik: f.cik,
  period_end: f.periodEnd,
  part: f.kind === 'new_holdings' ? `add:${createHash('sha256').update(JSON.stringify(f.holdings)).digest('hex').slice(0, 16)}` : '',
  filer_name: f.filerName,
  unit: f.unit,
  cusips: f.holdings.map((h) => h.cusip),
  issuers: f.holdings.map((h) => h.issuer),
  shares: f.holdings.map((h) => h.shares),
  values_usd: f.holdings.map((h) => h.valueUsd),
  source_file: file,
  loaded_at: now,
});

interface Parsed {
  readonly file: string;
  readonly table: string;
  readonly result: ParseResult<unknown>;
  readonly rows: readonly object[];
}

function parseEtfFile(f: SourceFile, opts: LoadOptions, now: number): Parsed {
  const target = opts.etfTarget ?? etfTargetFromName(f.name);
  if (target === null || !isServedTarget(target)) {
    const message =
      target === null
        ? 'region and asset unknown: name the file etf_flows_<us|hk>_<btc|eth|sol|xrp>... or pass --region and --asset'
        : 'hk flows are served for BTC only';
    return { file: f.name, table: 'etf_flows', result: { rows: [], errors: [{ file: f.name, line: 1, message }], skipped: [] }, rows: [] };
  }
  const result = parseEtfFlows(f.text, f.name, target.region);
  return { file: f.name, table: 'etf_flows', result, rows: result.rows.map((d) => etfRow(target, d, f.name, now)) };
}

function parseAll(kind: ReferenceKind, files: readonly SourceFile[], opts: LoadOptions, now: number): Parsed[] {
  if (kind === 'etf') return files.map((f) => parseEtfFile(f, opts, now));
  if (kind === 'cot') {
    return files.map((f) => {
      const result = parseCot(f.text, f.name, opts.cotVariant ?? 'futures_only', opts.cotReport);
      return { file: f.name, table: 'cot_positions', result, rows: result.rows.map((r) => cotRow(r, f.name, now)) };
    });
  }
  // 13F: a primary document and its table(s) belong together; the group is reported under its table's name.
  const result = parse13fFiles(files);
  const name = files.map((f) => f.name).join(' + ');
  return [{ file: name, table: 'filings_13f', result, rows: result.rows.map((r) => filingRow(r, name, now)) }];
}

/** A ZIP archive's single member as the file's text (the name keeps the archive's: `x.zip:member.txt`), else the file as is. */
export function unpackSource(f: SourceFile): SourceFile | RowError {
  if (f.bytes === undefined || !isZip(f.bytes)) {
    return /\.zip$/i.test(f.name) ? { file: f.name, line: 1, message: 'not a ZIP archive (no PK header)' } : f;
  }
  const member = readSingleMember(f.bytes);
  if (typeof member === 'string') return { file: f.name, line: 1, message: member };
  return { name: `${f.name}:${member.name}`, text: member.bytes.toString('utf8') };
}

/** Parses and writes; per-file reports (a file with errors has written 0). */
export async function loadReferenceFiles(
  store: Store,
  kind: ReferenceKind,
  files: readonly SourceFile[],
  opts: LoadOptions = {},
): Promise<FileReport[]> {
  const now = opts.now ?? Date.now();
  const batch = opts.batchRows ?? 5000;
  const say = opts.progress ?? (() => undefined);
  const reports: FileReport[] = [];
  const unpacked = files.map(unpackSource);
  for (const e of unpacked.filter((u): u is RowError => 'message' in u)) {
    say(`${e.file}: refused, ${e.message}; nothing written`);
    reports.push({ file: e.file, written: 0, skipped: [], errors: [e] });
  }
  const readable = unpacked.filter((u): u is SourceFile => !('message' in u));
  for (const p of parseAll(kind, readable, opts, now)) {
    const { errors, skipped } = p.result;
    if (errors.length > 0) {
      say(`${p.file}: refused, ${errors.length} invalid row(s); nothing written`);
      reports.push({ file: p.file, written: 0, skipped, errors });
      continue;
    }
    for (let i = 0; i < p.rows.length; i += batch) {
      await store.insert(p.table, p.rows.slice(i, i + batch));
      say(`${p.file}: ${Math.min(i + batch, p.rows.length)}/${p.rows.length} rows written to ${p.table}`);
    }
    if (skipped.length > 0) say(`${p.file}: ${skipped.length} row(s) skipped (known source defects)`);
    reports.push({ file: p.file, written: p.rows.length, skipped, errors });
  }
  return reports;
}
