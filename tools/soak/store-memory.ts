/**
 * The embedded store's own memory accounting, read through its SQL endpoint (read-only user): ClickHouse's tracked
 * memory (`MemoryTracking`: every allocation of its engine, caches included) and the part of it held by caches
 * (marks, uncompressed blocks, primary indexes, query and query-condition caches, page cache). Printed per soak
 * sample next to the process RSS, so RSS growth can be split into the store's and the rest (V8 heap, Buffers,
 * allocator). Null when the endpoint does not answer.
 */
const CACHES = [
  'MarkCacheBytes',
  'UncompressedCacheBytes',
  'PrimaryIndexCacheBytes',
  'IndexMarkCacheBytes',
  'IndexUncompressedCacheBytes',
  'QueryCacheBytes',
  'QueryConditionCacheBytes',
  'PageCacheBytes',
];

export interface StoreMemory {
  readonly trackedMb: number;
  readonly cachesMb: number;
}

export async function storeMemoryMb(sqlUrl: string): Promise<StoreMemory | null> {
  const names = ['MemoryTracking', ...CACHES].map((n) => `'${n}'`).join(',');
  const sql = `SELECT metric, value FROM system.metrics WHERE metric IN (${names}) FORMAT TSV`;
  try {
    const r = await fetch(`${sqlUrl}/`, { method: 'POST', body: sql, signal: AbortSignal.timeout(10_000) });
    if (!r.ok) return null;
    const values = new Map(
      (await r.text())
        .trim()
        .split('\n')
        .map((l) => l.split('\t'))
        .map(([k, v]) => [k ?? '', Number(v)] as const),
    );
    const tracked = values.get('MemoryTracking');
    if (tracked === undefined || !Number.isFinite(tracked)) return null;
    const caches = CACHES.reduce((a, k) => a + (values.get(k) ?? 0), 0);
    return { trackedMb: tracked / 1048576, cachesMb: caches / 1048576 };
  } catch {
    return null;
  }
}
