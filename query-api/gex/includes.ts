/** The `include` blocks of /v2/gex/levels and /v2/multi/gex/levels, and the multi-symbol bound. */
export const LEVELS_INCLUDES = ['by_strike', 'candles', 'expected_move', 'max_pain', 'profile', 'ranked', 'spot', 'zones'] as const;
export type LevelsIncludeName = (typeof LEVELS_INCLUDES)[number];
export const MULTI_INCLUDES = ['expected_move', 'max_pain', 'ranked', 'zones'] as const;
export const MULTI_MAX_SYMBOLS = 8;
