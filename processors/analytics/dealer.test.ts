import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { clipInventory, dealerInventoryAsOf, flowQuantity, resolveModel, stdQuantity } from './dealer.ts';
import type { TakerTrade } from './dealer.ts';

describe('std', () => {
  test('calls +OI, puts −OI', () => {
    assert.equal(stdQuantity('call', 5), 5);
    assert.equal(stdQuantity('put', 5), -5);
  });
});

describe('flow inventory from taker trades', () => {
  const contracts = new Map([
    ['A', { openInterest: 10, expiry: 1000 }],
    ['B', { openInterest: 3, expiry: 1000 }],
    ['C', { openInterest: 10, expiry: 500 }],
    ['D', { openInterest: 10, expiry: 1000 }],
  ]);
  const trades: TakerTrade[] = [
    { instrument: 'A', ts: 100, size: 4, side: 'buy' },
    { instrument: 'A', ts: 200, size: 1, side: 'sell' },
    { instrument: 'A', ts: 700, size: 2, side: 'buy' },
    { instrument: 'B', ts: 100, size: 5, side: 'sell' },
    { instrument: 'C', ts: 100, size: 2, side: 'buy' },
    { instrument: 'X', ts: 100, size: 2, side: 'buy' },
  ];
  test('as of 600: −(4 − 1) for A, B clipped to +OI, expired C and unknown X dropped, untraded D = 0', () => {
    const inv = dealerInventoryAsOf(trades, 600, contracts);
    assert.deepEqual(Object.fromEntries(inv), { A: -3, B: 3, D: 0 });
    assert.equal(dealerInventoryAsOf(trades, 499, contracts).get('C'), -2);
  });
  test('ts <= asOf is inclusive', () => {
    assert.equal(dealerInventoryAsOf(trades, 700, contracts).get('A'), -5);
    assert.equal(dealerInventoryAsOf(trades, 699, contracts).get('A'), -3);
  });
  test('dropped at/after expiry', () => {
    const inv = dealerInventoryAsOf(trades, 500, contracts);
    assert.equal(inv.has('C'), false);
  });
  test('same answer for any trade order', () => {
    const inv1 = dealerInventoryAsOf(trades, 1000 - 1, contracts);
    const inv2 = dealerInventoryAsOf([...trades].reverse(), 1000 - 1, contracts);
    assert.deepEqual(Object.fromEntries(inv1), Object.fromEntries(inv2));
  });
  test('clip and missing inventory', () => {
    assert.equal(clipInventory(-20, 10), -10);
    assert.equal(clipInventory(20, 10), 10);
    assert.equal(clipInventory(Number.NaN, 10), 0);
    assert.equal(flowQuantity(undefined, 10), 0);
    assert.equal(flowQuantity(-4, 10), -4);
  });
});

describe('model resolution', () => {
  test('flow only for BTC/ETH with inventory; else std', () => {
    assert.equal(resolveModel('flow', 'BTCUSDT', true), 'flow');
    assert.equal(resolveModel('flow', 'ETHUSDT', true), 'flow');
    assert.equal(resolveModel('flow', 'BTCUSDT', false), 'std');
    assert.equal(resolveModel('flow', 'SOLUSDT', true), 'std');
    assert.equal(resolveModel('flow', 'HYPEUSDT', true), 'std');
    assert.equal(resolveModel('std', 'BTCUSDT', true), 'std');
  });
});
