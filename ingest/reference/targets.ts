/** What an ETF flow file is about: the file holds only dates and fund tickers, so region and asset come from its name or the caller. */

export const ETF_ASSETS = ['BTC', 'ETH', 'SOL', 'XRP'] as const;
export type EtfAsset = (typeof ETF_ASSETS)[number];
export const ETF_REGIONS = ['us', 'hk'] as const;
export type EtfRegion = (typeof ETF_REGIONS)[number];

export interface EtfTarget {
  readonly region: EtfRegion;
  readonly asset: EtfAsset;
}

/** `etf_flows_us_btc_usd_millions.csv` -> {us, BTC}; null when the name does not say. */
export function etfTargetFromName(path: string): EtfTarget | null {
  const base = path.split(/[\\/]/).pop() ?? '';
  const m = /etf_flows_(us|hk)_(btc|eth|sol|xrp)/i.exec(base);
  if (m === null) return null;
  return { region: (m[1] as string).toLowerCase() as EtfRegion, asset: (m[2] as string).toUpperCase() as EtfAsset };
}

/** Hong Kong lists spot ETFs for BTC only in this product (spec: `hk` BTC only). */
export const isServedTarget = (t: EtfTarget): boolean => t.region === 'us' || t.asset === 'BTC';
