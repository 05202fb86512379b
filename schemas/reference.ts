/** Shapes of the reference data shared by the COT parser (ingest/reference) and the COT analytics (processors/analytics). */

export type CotReport = 'tff' | 'legacy' | 'disaggregated';
export type CotVariant = 'futures_only' | 'combined';

/** One market-week of one CFTC report: positions per trader category, in contracts. */
export interface CotWeek {
  readonly report: CotReport;
  readonly variant: CotVariant;
  /** CFTC contract market code (6 characters, e.g. 133741): the key (commodity codes change mid-file). */
  readonly marketCode: string;
  readonly marketName: string;
  /** YYYY-MM-DD */
  readonly reportDate: string;
  readonly openInterest: number;
  readonly categories: readonly string[];
  /** Per category; null = suppressed by the CFTC (`.`). */
  readonly long: readonly (number | null)[];
  readonly short: readonly (number | null)[];
}
