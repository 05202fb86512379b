/**
 * When a bus mirror syncs with the store, on the in-process bus: the first sync `settleMs` after the assignment, then
 * one every `periodMs`; an explicit `sync()` before the first is the first (the armed one does not run as well).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { MemoryBus } from '#bus/memory-bus.ts';
import { ensureProductTopics } from '#bus/topics.ts';
import { BusMirror } from './bus-mirror.ts';

let bus: MemoryBus;
const mirrors: BusMirror[] = [];
before(async () => {
  bus = new MemoryBus({ clientId: 'bus-mirror-test' });
  await ensureProductTopics(bus, 1);
});
after(async () => {
  await Promise.all(mirrors.map((m) => m.stop()));
  await bus.close();
});

function mirror(periodMs: number): { readonly mirror: BusMirror; readonly syncs: number[] } {
  const syncs: number[] = [];
  const started = Date.now();
  const m = new BusMirror({
    name: 'bus-mirror-test',
    bus,
    onTrade: () => undefined,
    sync: async () => {
      syncs.push(Date.now() - started);
    },
    periodMs,
    settleMs: 100,
  });
  mirrors.push(m);
  return { mirror: m, syncs };
}

test('the first sync runs settleMs after the assignment, then one every periodMs', async () => {
  const { mirror: m, syncs } = mirror(150);
  await m.start();
  await sleep(50);
  assert.equal(syncs.length, 0, 'none before the settle time');
  for (let i = 0; i < 500 && syncs.length < 2; i++) await sleep(10);
  await m.stop();
  assert.ok(syncs.length >= 2, `syncs at ${syncs.join(', ')} ms`);
  assert.ok((syncs[0] ?? 0) >= 100, `the first at ${syncs[0]} ms`);
  assert.ok((syncs[1] ?? 0) - (syncs[0] ?? 0) >= 150, `the second at ${syncs[1]} ms`);
});

test('an explicit sync before the first is the first: the armed one is cancelled, the period counts from it', async () => {
  const { mirror: m, syncs } = mirror(3_600_000);
  await m.start();
  await m.sync();
  assert.equal(syncs.length, 1);
  await sleep(300); // three settle times
  assert.equal(syncs.length, 1, 'the armed first sync did not run as well');
  await m.sync(); // later explicit syncs run as asked
  assert.equal(syncs.length, 2);
  await m.stop();
});
