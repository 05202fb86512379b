import { test } from 'node:test';
import assert from 'node:assert/strict';
import { consolidateChain, selectContracts } from './chain-quotes.ts';
import type { ChainQuoteRow } from './chain-quotes.ts';
import { venueBook } from './venue-book.ts';
import { oiByExpiry } from './oi-by-expiry.ts';
import { quoteRow } from './testing/quote-rows.ts';

const E = Date.UTC(2026, 2, 27, 8);
const E2 = Date.UTC(2026, 5, 26, 8);

function row(p: Partial<ChainQuoteRow> & Pick<ChainQuoteRow, 'venue' | 'strike' | 'option_type'>): ChainQuoteRow {
  return quoteRow({ expiry: E, ...p });
}

// Contract X (E, 100,000 call) on three venues; Y (E, 100,000 put) on one with OI 0; Z (E, 90,000 call) crossed.
const X = [
  row({
    venue: 'deribit',
    strike: 100_000,
    option_type: 'call',
    forward: 100_100,
    bid_price_usd: 5_000,
    bid_size: 2,
    ask_price_usd: 5_200,
    ask_size: 1,
    mark_price_usd: 5_100,
    mark_iv: 0.5,
    bid_iv: 0.49,
    ask_iv: 0.51,
    open_interest: 30,
    volume_24h: 10,
    delta: 0.5,
    delta_source: 'venue',
  }),
  row({
    venue: 'okx',
    strike: 100_000,
    option_type: 'call',
    bid_price_usd: 5_050,
    bid_size: 1,
    ask_price_usd: 5_150,
    ask_size: 3,
    mark_price_usd: 5_120,
    mark_iv: 0.52,
    ask_iv: 0.515,
    open_interest: 10,
    delta: 0.54,
    delta_source: 'computed',
  }),
  row({
    venue: 'bybit',
    strike: 100_000,
    option_type: 'call',
    forward: 100_050,
    bid_price_usd: 5_050,
    bid_size: 4,
    mark_iv: 0.51,
    volume_24h: 5,
  }),
];
const Y = [
  row({
    venue: 'deribit',
    strike: 100_000,
    option_type: 'put',
    mark_iv: 0.53,
    mark_price_usd: 4_900,
    delta: -0.49,
    delta_source: 'computed',
  }),
];
const Z = [
  row({
    venue: 'deribit',
    strike: 90_000,
    option_type: 'call',
    bid_price_usd: 300,
    ask_price_usd: 320,
    mark_price_usd: 310,
    open_interest: 1,
  }),
  row({ venue: 'okx', strike: 90_000, option_type: 'call', bid_price_usd: 330, ask_price_usd: 340, mark_price_usd: 335, open_interest: 1 }),
];
const ROWS = [...Y, ...Z, ...X];

test('consolidated chain: best bid/ask across venues (ties by size), OI-weighted mark/IV/forward/greeks, sums, sources (hand-computed)', () => {
  const [z, x, y] = consolidateChain(ROWS);
  assert.deepEqual([z?.strike, x?.strike, x?.type, y?.type], [90_000, 100_000, 'call', 'put']);
  assert.deepEqual(x?.bid, { venue: 'bybit', price_usd: 5_050, size: 4, iv: null }); // ties with okx 5,050: larger size
  assert.deepEqual(x?.ask, { venue: 'okx', price_usd: 5_150, size: 3, iv: 0.515 });
  assert.equal(x?.mark_usd, (30 * 5_100 + 10 * 5_120) / 40); // 5,105
  assert.equal(x?.mark_iv, (30 * 0.5 + 10 * 0.52 + 0 * 0.51) / 40); // 0.505
  assert.equal(x?.forward, (30 * 100_100 + 10 * 100_000) / 40); // 100,075
  assert.equal(x?.delta, (30 * 0.5 + 10 * 0.54) / 40); // 0.51
  assert.deepEqual([x?.open_interest, x?.volume_24h], [40, 15]);
  assert.deepEqual(x?.greeks_source, { delta: 'mixed', gamma: 'none', vega: 'none', theta: 'none' });
  assert.deepEqual(
    x?.venues.map((v) => v.venue),
    ['bybit', 'deribit', 'okx'],
  );
  // Y: OI 0 → equal weights; no book; one computed greek
  assert.deepEqual(
    [y?.bid, y?.ask, y?.mark_iv, y?.delta, y?.volume_24h, y?.greeks_source.delta],
    [null, null, 0.53, -0.49, null, 'computed'],
  );
  assert.equal(z?.mark_usd, 322.5);
});

test('filters: expiry day, type, strike range, moneyness on the consolidated forward (a contract keeps all its venues)', () => {
  const keys = (f: Parameters<typeof selectContracts>[1]): string[] =>
    selectContracts([...ROWS, row({ venue: 'okx', strike: 120_000, option_type: 'call', expiry: E2 })], f).map(
      (g) => `${g[0]?.strike}${g[0]?.option_type[0]}:${g.length}`,
    );
  assert.deepEqual(keys({}), ['90000c:2', '100000c:3', '100000p:1', '120000c:1']);
  assert.deepEqual(keys({ expiryDays: [Date.UTC(2026, 5, 26)] }), ['120000c:1']);
  assert.deepEqual(keys({ type: 'put' }), ['100000p:1']);
  assert.deepEqual(keys({ strikeMin: 95_000, strikeMax: 100_000 }), ['100000c:3', '100000p:1']);
  // |90,000/100,000 − 1| = 0.1 kept at 0.1; X's forward 100,075 → |K/F − 1| = 0.00075
  assert.deepEqual(keys({ moneyness: 0.1 }), ['90000c:2', '100000c:3', '100000p:1']);
  assert.deepEqual(keys({ moneyness: 0.0007 }), ['100000p:1']);
  assert.deepEqual(keys({ moneyness: 0.00075 }), ['100000c:3', '100000p:1']);
});

test('venue book: per-venue spreads in bps of the venue mark, consolidated spread in bps of the consolidated mark, crossed books, tightest first, one-sided last', () => {
  const book = venueBook(selectContracts(ROWS, {}), 'spread_bps');
  assert.deepEqual(
    book.map((r) => `${r.strike}${r.type}`),
    ['90000call', '100000call', '100000put'],
  );
  const [z, x, y] = book;
  assert.deepEqual([z?.spread_usd, z?.crossed, z?.best_bid?.venue, z?.best_ask?.venue], [-10, true, 'okx', 'deribit']);
  assert.equal(z?.spread_bps, (-10 / 322.5) * 10_000);
  assert.equal(x?.spread_usd, 100);
  assert.equal(x?.spread_bps, (100 / 5_105) * 10_000);
  assert.deepEqual(
    x?.venues.map((v) => [v.venue, v.spread_usd, v.spread_bps]),
    [
      ['bybit', null, null],
      ['deribit', 200, (200 / 5_100) * 10_000],
      ['okx', 100, (100 / 5_120) * 10_000],
    ],
  );
  assert.deepEqual([y?.spread_bps, y?.crossed], [null, false]);
  assert.deepEqual(
    venueBook(selectContracts(ROWS, {}), 'strike').map((r) => r.strike),
    [90_000, 100_000, 100_000],
  );
  assert.deepEqual(
    venueBook(selectContracts(ROWS, {}), 'spread_usd').map((r) => r.spread_usd),
    [-10, 100, null],
  );
});

test('OI by expiry: sums, USD at spot, put/call ratio, max pain per expiry (hand-computed), per venue, totals', () => {
  const oi = (venue: string, expiry: number, strike: number, option_type: 'call' | 'put', open_interest: number) => ({
    venue,
    expiry,
    strike,
    option_type,
    open_interest,
  });
  const r = oiByExpiry(
    [
      oi('deribit', E, 100_000, 'call', 30),
      oi('okx', E, 100_000, 'call', 10),
      oi('deribit', E, 95_000, 'put', 20),
      oi('okx', E, 105_000, 'put', 5),
      oi('deribit', E2, 110_000, 'call', 0),
    ],
    100_000,
  );
  const [e1, e2] = r.expiries;
  assert.deepEqual([e1?.call_oi, e1?.put_oi, e1?.total_oi, e1?.put_call_ratio], [40, 25, 65, 0.625]);
  assert.deepEqual([e1?.call_oi_usd, e1?.put_oi_usd, e1?.total_oi_usd], [4e6, 2.5e6, 6.5e6]);
  // pain(95k) = 5·10,000 = 50,000; pain(100k) = 5·5,000 = 25,000; pain(105k) = 40·5,000 = 200,000
  assert.deepEqual(e1?.max_pain, { strike: 100_000, value: 25_000 });
  assert.deepEqual(
    e1?.exchanges.map((x) => [x.venue, x.call_oi, x.put_oi, x.put_call_ratio]),
    [
      ['deribit', 30, 20, 20 / 30],
      ['okx', 10, 5, 0.5],
    ],
  );
  assert.deepEqual([e2?.expiry, e2?.put_call_ratio, e2?.max_pain], [E2, null, null]);
  assert.deepEqual([r.totals.call_oi, r.totals.put_oi, r.totals.put_call_ratio], [40, 25, 0.625]);
});
