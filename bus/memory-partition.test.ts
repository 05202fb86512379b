import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { MemoryPartition } from './memory-partition.ts';

setFlagsFromString('--expose_gc');
const gc = runInNewContext('gc') as () => void;

/** Let FinalizationRegistry / WeakRef observe a full collection. */
async function collect(): Promise<void> {
  for (let i = 0; i < 3; i++) {
    gc();
    await new Promise((r) => setImmediate(r));
  }
}

test('a trimmed message is released at once, not at the next compaction (a value may pin a whole encode pool)', async () => {
  const part = new MemoryPartition('t', 0, 100_000);
  const refs: WeakRef<Buffer>[] = [];
  for (let i = 0; i < 100; i++) {
    const value = Buffer.alloc(256 * 1024, i); // as a view of a 256 KB encode pool would pin
    refs.push(new WeakRef(value));
    part.append({ key: `k${i}`, value }, 1_000 + i);
  }
  part.trimTo(60); // far below the compaction threshold
  await collect();
  const alive = refs.map((r) => r.deref() !== undefined);
  assert.deepEqual(alive.slice(0, 60).filter(Boolean).length, 0, 'trimmed values still referenced');
  assert.equal(alive.slice(60).filter(Boolean).length, 40, 'retained values must stay');
  // The retained ones are still readable, with their offsets and bytes.
  const rest = part.read(60, 100);
  assert.deepEqual(
    rest.map((m) => Number(m.offset)),
    Array.from({ length: 40 }, (_, i) => 60 + i),
  );
  assert.equal(rest[0]?.value[0], 60);
  assert.equal(part.earliest, 60);
  assert.equal(part.retained, 40);
});
