import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RowBudget } from './row-budget.ts';

const settled = async (p: Promise<void>): Promise<boolean> => {
  let done = false;
  void p.then(() => (done = true));
  await new Promise((r) => setImmediate(r));
  return done;
};

test('grants while the rows fit, queues the rest in order, and grants them as rows are released', async () => {
  const b = new RowBudget(100);
  assert.equal(await settled(b.acquire(60)), true);
  assert.equal(await settled(b.acquire(40)), true);
  assert.equal(b.inUse, 100);
  const third = b.acquire(30);
  const fourth = b.acquire(5); // fits after the third only: arrival order is kept
  assert.equal(await settled(third), false);
  assert.equal(await settled(fourth), false);
  b.release(40);
  assert.equal(await settled(third), true);
  assert.equal(await settled(fourth), true);
  assert.equal(b.inUse, 95);
});

test('a batch larger than the budget is granted once nothing else is held', async () => {
  const b = new RowBudget(10);
  await b.acquire(4);
  const big = b.acquire(25);
  assert.equal(await settled(big), false);
  b.release(4);
  assert.equal(await settled(big), true);
  assert.equal(b.inUse, 25);
  b.release(25);
  assert.equal(b.inUse, 0);
});
