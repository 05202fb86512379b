import { test } from 'node:test';
import assert from 'node:assert/strict';
import { consolidateChain } from './chain-quotes.ts';
import type { ChainQuoteRow } from './chain-quotes.ts';
import { chainTradeWindow, withTrades, type ContractTrades } from './chain-trades.ts';
import { quoteRow } from './testing/quote-rows.ts';

const E = Date.UTC(2026, 2, 27, 8);
const row = (venue: string, strike: number, option_type: 'call' | 'put'): ChainQuoteRow =>
  quoteRow({ venue, strike, option_type, expiry: E, open_interest: 1 });
const trades = (venue: string, strike: number, option_type: 'call' | 'put', n: number, usd: number): ContractTrades => ({
  venue,
  expiry: E,
  strike,
  option_type,
  trade_count: n,
  notional_volume: usd,
});

test('trade window: the 24 hours before the UTC minute of the instant, whole minutes', () => {
  const t = Date.UTC(2026, 2, 10, 12, 34, 56, 789);
  assert.deepEqual(chainTradeWindow(t), { fromMs: Date.UTC(2026, 2, 9, 12, 34), toMs: Date.UTC(2026, 2, 10, 12, 34) });
  assert.deepEqual(chainTradeWindow(Date.UTC(2026, 2, 10, 12, 34)), chainTradeWindow(t), 'an instant on the minute: the same window');
});

test('per venue figures attach by (venue, expiry, strike, type); consolidation sums them; untraded contracts are 0', () => {
  const rows = [row('deribit', 100_000, 'call'), row('okx', 100_000, 'call'), row('deribit', 100_000, 'put'), row('okx', 90_000, 'put')];
  const attached = withTrades(rows, [
    trades('deribit', 100_000, 'call', 2, 7_500),
    trades('okx', 100_000, 'call', 1, 10_200),
    trades('okx', 100_000, 'put', 5, 999), // okx lists no 100k put in this chain: ignored
    trades('bybit', 100_000, 'call', 4, 4_000), // venue not in the chain: ignored
  ]);
  assert.deepEqual(
    attached.map((r) => [r.venue, r.strike, r.option_type, r.trade_count, r.notional_volume]),
    [
      ['deribit', 100_000, 'call', 2, 7_500],
      ['okx', 100_000, 'call', 1, 10_200],
      ['deribit', 100_000, 'put', 0, 0],
      ['okx', 90_000, 'put', 0, 0],
    ],
  );
  const byContract = consolidateChain(attached).map((c) => [c.strike, c.type, c.trade_count, c.notional_volume]);
  assert.deepEqual(byContract, [
    [90_000, 'put', 0, 0],
    [100_000, 'call', 3, 17_700],
    [100_000, 'put', 0, 0],
  ]);
  // Rows without trade figures (a rows file without --trades): null, not zero.
  assert.deepEqual(
    consolidateChain(rows).map((c) => [c.trade_count, c.notional_volume]),
    [
      [null, null],
      [null, null],
      [null, null],
    ],
  );
});
