import type { Store } from '#clickhouse/store.ts';

/** Active parts, rows, bytes on disk and uncompressed bytes of a table (the bench fills report them). */
export async function tableInfo(store: Store, table: string): Promise<{ rows: number; parts: number; bytes: number; raw: number }> {
  const [r] = await store.query<{ rows: string; parts: string; bytes: string; raw: string }>(
    `SELECT toString(sum(rows)) AS rows, toString(count()) AS parts, toString(sum(bytes_on_disk)) AS bytes,
       toString(sum(data_uncompressed_bytes)) AS raw
     FROM system.parts WHERE database = currentDatabase() AND table = {table:String} AND active`,
    { table },
  );
  return { rows: Number(r?.rows ?? 0), parts: Number(r?.parts ?? 0), bytes: Number(r?.bytes ?? 0), raw: Number(r?.raw ?? 0) };
}
