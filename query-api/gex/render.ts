/** Levels payloads of the API (`data` of /v2/gex/levels): engine levels without diagnostics, plus candles. */
import type { LevelsData, LevelsInclude, LevelsIncludeKey } from '#processors/analytics/levels.ts';
import type { Candle } from './candles.ts';
import type { LevelsIncludeName } from './includes.ts';

export type LevelsPayload = Omit<LevelsData, 'diagnostics'> & { readonly candles?: readonly Candle[] };

/** The engine's include keys (every API block except candles, which come from the market series). */
export function engineIncludes(include: readonly LevelsIncludeName[]): LevelsInclude {
  return include.filter((i): i is LevelsIncludeKey => i !== 'candles');
}

/** Engine levels → API payload; `source` = the venues whose rows were summed. */
export function levelsPayload(levels: LevelsData, candles?: readonly Candle[]): { payload: LevelsPayload; source: readonly string[] } {
  const { diagnostics, ...rest } = levels;
  return { payload: candles === undefined ? rest : { ...rest, candles }, source: diagnostics?.venues ?? [] };
}
