import type { SnapshotCache } from './snapshot-cache.ts';
import type { AppContext } from '../types.ts';
import type { SnapshotMemo } from './memo.ts';

/** Shared by the GEX route files. */
export interface GexContext extends AppContext {
  /** Latest snapshot per symbol (current requests); as_of requests read ClickHouse. */
  readonly cache: SnapshotCache;
  /** Rendered answers per cached snapshot. */
  readonly memo: SnapshotMemo;
}

export const TAG = 'gex';
