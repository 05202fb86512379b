import { CATEGORIES, type Category } from './categories.ts';
import type { Coverage } from './market-data.ts';

export type Freshness = 'fresh' | 'stale' | 'missing';

export interface CategoryState {
  readonly category: Category;
  readonly status: Freshness;
  readonly lastMs: number | null;
  readonly ageSeconds: number | null;
}

/** Freshness of every category of one symbol at `now`, from the newest row per raw table. */
export function categoryStates(coverage: Coverage, symbol: string, now: number): CategoryState[] {
  return CATEGORIES.map((category) => {
    const last = coverage.get(category.table)?.get(symbol)?.lastMs;
    if (last === undefined) return { category, status: 'missing' as const, lastMs: null, ageSeconds: null };
    const ageSeconds = Math.max(0, Math.round((now - last) / 100) / 10);
    return { category, status: ageSeconds <= category.freshSeconds ? ('fresh' as const) : ('stale' as const), lastMs: last, ageSeconds };
  });
}

/** Overall: missing when nothing is recorded, fresh when every recorded category is fresh, else stale. */
export function overall(states: readonly CategoryState[]): Freshness {
  const present = states.filter((s) => s.status !== 'missing');
  if (present.length === 0) return 'missing';
  return present.every((s) => s.status === 'fresh') ? 'fresh' : 'stale';
}
