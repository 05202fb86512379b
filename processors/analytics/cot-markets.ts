/**
 * The COT market catalog: asset class from the CFTC market name, the report each market is read from,
 * and which trader categories are compared as "smart" and "fast" money (processors/README.md). Pure.
 */

import type { CotReport, CotVariant } from '#schemas/reference.ts';

export const COT_ASSET_CLASSES = ['crypto', 'equity', 'rates', 'fx', 'commodity_energy', 'commodity_metal', 'commodity_ag'] as const;
export type CotAssetClass = (typeof COT_ASSET_CLASSES)[number] | 'other';

/** Smart money = the hedging / allocating side; fast money = the trend-following speculators. */
export const SMART_FAST: Readonly<Record<CotReport, { readonly smart: string; readonly fast: string }>> = {
  tff: { smart: 'asset_mgr', fast: 'lev_money' },
  disaggregated: { smart: 'prod_merc', fast: 'm_money' },
  legacy: { smart: 'commercial', fast: 'noncommercial' },
};

/** Order of preference when a market is in several loaded reports: the finest categories, options included. */
const REPORT_RANK: Readonly<Record<CotReport, number>> = { tff: 0, disaggregated: 1, legacy: 2 };
const VARIANT_RANK: Readonly<Record<CotVariant, number>> = { combined: 0, futures_only: 1 };

export function preferredSource<T extends { readonly report: CotReport; readonly variant: CotVariant }>(
  sources: readonly T[],
): T | undefined {
  return [...sources].sort((a, b) => REPORT_RANK[a.report] - REPORT_RANK[b.report] || VARIANT_RANK[a.variant] - VARIANT_RANK[b.variant])[0];
}

/** Keyword rules on the market part of "MARKET - EXCHANGE", first match wins (rates before fx: EURODOLLAR). */
const RULES: readonly (readonly [CotAssetClass, RegExp])[] = [
  ['crypto', /\b(BITCOIN|ETHER|SOL|XRP|CRYPTO|LITECOIN|CARDANO|DOGECOIN|AVALANCHE|POLKADOT|CHAINLINK|STELLAR|HBAR|SHIB|SUI)\b/],
  ['rates', /\b(TREASURY|T-NOTE|T-BOND|UST|BOND|NOTE|SOFR|FED FUNDS|EURODOLLAR|ERIS|SWAP|YIELD|TERM|BILL)\b/],
  [
    'fx',
    /\b(DOLLAR|EURO FX|YEN|FRANC|PESO|POUND|STERLING|REAL|RAND|RUPEE|LIRA|KRONE|KRONA|ZLOTY|WON|RENMINBI|YUAN|SHEKEL|FORINT|KORUNA|CURRENCY)\b/,
  ],
  ['equity', /\b(S&P|NASDAQ|DJIA|DOW|RUSSELL|VIX|NIKKEI|MSCI|STOCK|EQUITY|E-MINI|INDEX)\b/],
  [
    'commodity_energy',
    /\b(CRUDE|WTI|BRENT|GASOLINE|HEATING OIL|NATURAL GAS|NAT GAS|ETHANOL|PROPANE|BUTANE|DIESEL|GASOIL|FUEL|COAL|ELECTRICITY|POWER|RBOB|ULSD|LNG|NGL|JET)\b/,
  ],
  ['commodity_metal', /\b(GOLD|SILVER|COPPER|PLATINUM|PALLADIUM|ALUMINUM|ALUMINIUM|STEEL|IRON|COBALT|LITHIUM|ZINC|NICKEL|LEAD)\b/],
  [
    'commodity_ag',
    /\b(CORN|WHEAT|SOYBEAN|SOYBEANS|SOYBEAN OIL|SOYBEAN MEAL|COTTON|SUGAR|COFFEE|COCOA|CATTLE|HOGS|MILK|OATS|RICE|CANOLA|ORANGE|LUMBER|BUTTER|CHEESE|WHEY|ROUGH)\b/,
  ],
];

export function assetClassOf(marketName: string): CotAssetClass {
  const market = (marketName.split(' - ')[0] ?? marketName).toUpperCase();
  for (const [cls, re] of RULES) if (re.test(market)) return cls;
  return 'other';
}
