import { createChdbConnection } from 'chdb/connection';
import { tempDataPath } from './testing/temp-store.ts';
const conn = createChdbConnection({ path: tempDataPath() });
await conn.command({ query: 'CREATE TABLE t (a UInt8, s String) ENGINE=MergeTree ORDER BY a' } as never);
for (const [table, body] of [['nope', '[1,"x"]'], ['t', '[1,"x"]\n["zz",2]'], ['t', '']]) {
  try { console.log(await conn.chdb.rawInsert({ table: table!, values: Buffer.from(body!), format: 'JSONCompactEachRow', columns: ['a', 's'], settings: { async_insert: 0 } })); }
  catch (e) { console.log(Object.getPrototypeOf(e).constructor.name, { ...(e as object), cause: undefined }, (e as Error).message.slice(0, 150)); }
}
await conn.close();
