import type { Store } from '#clickhouse/store.ts';
import type { CotWeek } from '#processors/analytics/cot-summary.ts';
import type { FlowDay, HolderPosition } from '#processors/analytics/reference-flows.ts';
import type { CotReport, CotVariant } from '#ingest/reference/cot.ts';

/** Store reads behind /v2/etf/flows, /v2/cot/* and /v2/filings/holders (tables of migration 030, read with FINAL). */

interface EtfRow {
  readonly date: string;
  readonly funds: string[];
  readonly flows_usd_m: number[];
  readonly total_usd_m: number;
}

export async function readEtfDays(store: Store, region: string, asset: string): Promise<FlowDay[]> {
  const rows = await store.query<EtfRow>(
    'SELECT toString(date) AS date, funds, flows_usd_m, total_usd_m FROM etf_flows FINAL WHERE region = {region:String} AND asset = {asset:String} ORDER BY date',
    { region, asset },
  );
  return rows.map((r) => ({ date: r.date, funds: r.funds, flows: r.flows_usd_m, total: r.total_usd_m }));
}

interface CotRow {
  readonly market_code: string;
  readonly market_name: string;
  readonly report: CotReport;
  readonly variant: CotVariant;
  readonly report_date: string;
  readonly open_interest: number;
  readonly categories: string[];
  readonly long: (number | null)[];
  readonly short: (number | null)[];
}

const COT_COLUMNS =
  'market_code, market_name, report, variant, toString(report_date) AS report_date, open_interest, categories, long, short';

const toWeek = (r: CotRow): CotWeek => ({
  marketCode: r.market_code,
  marketName: r.market_name,
  report: r.report,
  variant: r.variant,
  reportDate: r.report_date,
  openInterest: r.open_interest,
  categories: r.categories,
  long: r.long,
  short: r.short,
});

/**
 * A version of the stored COT data that changes with every write: each load stamps its rows with its own
 * `loaded_at`, so a new or corrected file moves max(loaded_at), and a background merge moves count().
 */
export async function readCotVersion(store: Store): Promise<string> {
  const rows = await store.query<{ readonly n: string; readonly at: string }>(
    'SELECT toString(count()) AS n, toString(max(loaded_at)) AS at FROM cot_positions',
  );
  return `${rows[0]?.n ?? '0'}@${rows[0]?.at ?? ''}`;
}

/** Every stored COT week (all markets), or one market's. */
export async function readCotWeeks(store: Store, marketCode?: string): Promise<CotWeek[]> {
  const rows =
    marketCode === undefined
      ? await store.query<CotRow>(`SELECT ${COT_COLUMNS} FROM cot_positions FINAL ORDER BY market_code, report_date`)
      : await store.query<CotRow>(`SELECT ${COT_COLUMNS} FROM cot_positions FINAL WHERE market_code = {code:String} ORDER BY report_date`, {
          code: marketCode,
        });
  return rows.map(toWeek);
}

interface HolderRow {
  readonly filer_cik: string;
  readonly filer_name: string;
  readonly period_end: string;
  readonly shares: number;
  readonly value_usd: number;
}

/** Every stored filer-quarter position of one CUSIP (the parts of a filing summed by holdersData). */
export async function readHolderPositions(store: Store, cusip: string): Promise<HolderPosition[]> {
  const rows = await store.query<HolderRow>(
    `SELECT filer_cik, filer_name, toString(period_end) AS period_end,
            arraySum(arrayFilter((s, c) -> c = {cusip:String}, shares, cusips)) AS shares,
            arraySum(arrayFilter((v, c) -> c = {cusip:String}, values_usd, cusips)) AS value_usd
     FROM filings_13f FINAL WHERE has(cusips, {cusip:String})`,
    { cusip },
  );
  return rows.map((r) => ({ cik: r.filer_cik, filerName: r.filer_name, periodEnd: r.period_end, shares: r.shares, valueUsd: r.value_usd }));
}
