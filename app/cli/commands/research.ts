import type { CliCommand } from '../command.ts';
import { readSources } from './load.ts';
import { parseCot } from '#ingest/reference/cot.ts';
import { parse13fFiles } from '#ingest/reference/thirteenf.ts';
import { cotSeries } from '#processors/analytics/cot-summary.ts';
import { instrumentHistory, summaryRows } from '#processors/analytics/cot-rows.ts';
import { COT_SPANS, type CotSpan } from '#processors/analytics/cot-stats.ts';
import { holdersData, type HolderPosition } from '#processors/analytics/reference-flows.ts';
import { HOLDER_CUSIPS } from '#query-api/reference/schemas.ts';
import type { RowError } from '#ingest/reference/types.ts';
import { unpackSource, type SourceFile } from '#ingest/reference/load.ts';

/** Researcher commands: the `data` objects of /v2/cot/* and /v2/filings/holders computed from files, no store. */

const fail = (cmd: string, message: string): number => {
  process.stderr.write(`gex ${cmd}: ${message}\n`);
  return 2;
};

const refuse = (cmd: string, errors: readonly RowError[]): number => {
  for (const e of errors) process.stderr.write(`${e.file}:${e.line}: ${e.message}\n`);
  process.stderr.write(`gex ${cmd}: ${errors.length} invalid row(s); nothing computed\n`);
  return 1;
};

const filesOf = (flags: ReadonlyMap<string, string>, positionals: readonly string[]): string[] => {
  const f = flags.get('file');
  return f === undefined || f === 'true' ? [] : [f, ...positionals];
};

/** The files, or the exit code after reporting why they cannot be read. */
async function readOrFail(cmd: string, paths: readonly string[]): Promise<SourceFile[] | number> {
  try {
    return await readSources(paths);
  } catch (err) {
    return fail(cmd, (err as Error).message);
  }
}

const print = (data: unknown): number => {
  process.stdout.write(`${JSON.stringify(data, null, 2)}\n`);
  return 0;
};

/**
 * `gex cot --file F… [--market CODE] [--span 1y|3y|5y|all]`: /v2/cot/summary data (asset_class all), or /v2/cot/instrument data for
 * one market.
 */
export const cotCommand: CliCommand = {
  name: 'cot',
  usage: 'cot --file F… [--market CODE] [--span 1y|3y|5y|all]',
  summary: "Print the COT summary (every market) or one market's history computed from CFTC files, without a store.",
  async run({ flags, positionals }) {
    const paths = filesOf(flags, positionals);
    if (paths.length === 0) return fail('cot', '--file F is required');
    const span = (flags.get('span') ?? '3y') as CotSpan;
    if (!COT_SPANS.includes(span)) return fail('cot', `--span must be one of ${COT_SPANS.join(', ')}`);
    const files = await readOrFail('cot', paths);
    if (typeof files === 'number') return files;
    const parsed = files.map(unpackSource).map((f) => ('message' in f ? { rows: [], errors: [f] } : parseCot(f.text, f.name)));
    const errors = parsed.flatMap((p) => p.errors);
    if (errors.length > 0) return refuse('cot', errors);
    const series = cotSeries(parsed.flatMap((p) => p.rows));
    const market = flags.get('market');
    if (market === undefined) {
      return print({
        asset_class: 'all',
        span,
        sort: 'extremity',
        extremes_only: false,
        rows: summaryRows(series, { assetClass: 'all', span, sort: 'extremity', limit: 200, extremesOnly: false }),
      });
    }
    const one = series.find((s) => s.id === market);
    if (one === undefined) return fail('cot', `no market ${market} in the files (ids: ${series.map((s) => s.id).join(', ')})`);
    return print(instrumentHistory(one, span));
  },
};

/** `gex holders --file F… --ticker T [--limit N]`: /v2/filings/holders data from 13F files (each primary document before its table). */
export const holdersCommand: CliCommand = {
  name: 'holders',
  usage: 'holders --file F… --ticker MSTR|COIN|HOOD|IBIT [--limit N]',
  summary: 'Print the 13F holders of a ticker computed from primary documents and information tables, without a store.',
  async run({ flags, positionals }) {
    const paths = filesOf(flags, positionals);
    if (paths.length === 0) return fail('holders', '--file F… is required (primary document, then its information table)');
    const ticker = flags.get('ticker') ?? '';
    if (!Object.hasOwn(HOLDER_CUSIPS, ticker)) return fail('holders', `--ticker must be one of ${Object.keys(HOLDER_CUSIPS).join(', ')}`);
    const limit = Number(flags.get('limit') ?? '20');
    if (!Number.isInteger(limit) || limit < 1 || limit > 100) return fail('holders', '--limit must be an integer between 1 and 100');
    const files = await readOrFail('holders', paths);
    if (typeof files === 'number') return files;
    const parsed = parse13fFiles(files);
    if (parsed.errors.length > 0) return refuse('holders', parsed.errors);
    const cusip = HOLDER_CUSIPS[ticker as keyof typeof HOLDER_CUSIPS];
    // As the store does: a later filing of the same filer and quarter (a restatement) replaces the earlier one;
    // new-holdings amendments add to it.
    const filings = new Map(parsed.rows.map((f, i) => [f.kind === 'new_holdings' ? `add:${i}` : `${f.cik}|${f.periodEnd}`, f]));
    const positions: HolderPosition[] = [...filings.values()].flatMap((f) =>
      f.holdings
        .filter((h) => h.cusip === cusip)
        .map((h) => ({ cik: f.cik, filerName: f.filerName, periodEnd: f.periodEnd, shares: h.shares, valueUsd: h.valueUsd })),
    );
    return print(holdersData(ticker, cusip, positions, limit));
  },
};
