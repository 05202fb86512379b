import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeCursor, encodeCursor, type TapeCursor, type TapeOrder } from './cursor.ts';
import { keeps, utcDate, type TapeFilter, type TapePage } from './filter.ts';
import { compareKeys, compareText, SymbolTail, type TailEntry } from './tail.ts';
import type { TapeRow } from './tape-row.ts';

const T0 = Date.UTC(2026, 2, 10, 12, 0);
const E1 = Date.UTC(2026, 2, 13, 8, 0);
const E2 = Date.UTC(2026, 2, 27, 8, 0);

function entry(ts: number, venue: string, id: string, o: Partial<Omit<TapeRow, 'expiry'>> & { expiryMs?: number } = {}): TailEntry {
  const expiry = o.expiryMs ?? E1;
  const row: TapeRow = {
    time: new Date(ts).toISOString(),
    venue,
    symbol: 'BTCUSDT',
    instrument: `BTC-X-${id}`,
    expiry: new Date(expiry).toISOString(),
    strike: 100_000,
    type: o.type ?? 'call',
    side: o.side ?? 'buy',
    size: 1,
    price: 0.01,
    price_currency: 'BTC',
    price_usd: 1_000,
    premium_usd: o.premium_usd ?? 1_000,
    iv: 0.5,
    index_price: 100_000,
    block: o.block ?? false,
    trade_id: id,
  };
  return { ts, venue, id, expiryDate: utcDate(expiry), row };
}

const ALL: TapeFilter = {
  symbol: 'BTCUSDT',
  fromMs: 0,
  toMs: T0 + 86_400_000,
  venues: [],
  expiryDates: [],
  type: null,
  side: null,
  minPremiumUsd: 0,
  block: null,
};

/** The store's answer, computed the obvious way: dedup by key (last write wins), sort, window, filter, cursor, limit. */
function oracle(stored: readonly TailEntry[], f: TapeFilter, order: TapeOrder, limit: number, cursor: TapeCursor | null): TapePage {
  const byKey = new Map<string, TailEntry>();
  for (const e of stored) byKey.set(`${e.ts}|${e.venue}|${e.id}`, e);
  const sorted = [...byKey.values()].sort(compareKeys);
  if (order === 'desc') sorted.reverse();
  const rows = sorted.filter((e) => {
    if (e.ts < f.fromMs || e.ts > f.toMs || !keeps(f, e.row, e.expiryDate)) return false;
    if (cursor === null) return true;
    const c = compareKeys(e, cursor);
    return order === 'desc' ? c < 0 : c > 0;
  });
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    trades: page.map((e) => e.row),
    nextCursor: rows.length > limit && last !== undefined ? encodeCursor({ ts: last.ts, venue: last.venue, id: last.id, order }) : null,
  };
}

test('compareText orders by code point (UTF-8 bytes), as ClickHouse compares strings', () => {
  assert.ok(compareText('a', 'b') < 0);
  assert.ok(compareText('ab', 'a') > 0);
  assert.equal(compareText('okx', 'okx'), 0);
  // U+FF21 (one UTF-16 unit, UTF-8 EF BC A1) sorts BELOW U+1F600 (a surrogate pair, UTF-8 F0 9F 98 80), although
  // its code unit 0xFF21 is above the high surrogate 0xD83D.
  assert.ok(compareText('\uFF21', '\u{1F600}') < 0);
  assert.ok('\uFF21' > '\u{1F600}', 'plain JS comparison would get it wrong');
  assert.ok(compareText('\u00E9', 'z') > 0);
});

test('a tail serves nothing before its first load, then every page inside its coverage', () => {
  const tail = new SymbolTail(100);
  tail.add(entry(T0 + 5, 'deribit', 'a'));
  assert.equal(tail.page(ALL, 'desc', 10, null), null);
  // the store held 3 trades since the window start T0: coverage ts > T0 − 1
  const stored = [entry(T0, 'okx', 'x'), entry(T0 + 1, 'deribit', 'y'), entry(T0 + 5, 'deribit', 'a')];
  assert.equal(tail.load(stored, T0 - 1), 2);
  const f = { ...ALL, fromMs: T0 };
  assert.deepEqual(tail.page(f, 'desc', 10, null), oracle(stored, f, 'desc', 10, null));
  // a window reaching below the floor is the store's
  assert.equal(tail.page({ ...ALL, fromMs: T0 - 1 }, 'desc', 10, null), null);
  assert.equal(tail.page({ ...ALL, fromMs: T0 - 1 }, 'asc', 10, null), null);
  // ... unless the page fills before reaching it
  assert.deepEqual(tail.page({ ...ALL, fromMs: T0 - 1 }, 'desc', 2, null), oracle(stored, ALL, 'desc', 2, null));
});

test('redelivery replaces (last write wins), late trades land in order, the same ms orders by venue then id', () => {
  const tail = new SymbolTail(100);
  tail.load([], T0 - 1);
  tail.add(entry(T0 + 10, 'okx', 'b'));
  tail.add(entry(T0 + 10, 'deribit', 'z'));
  tail.add(entry(T0 + 10, 'okx', 'a'));
  tail.add(entry(T0 + 2, 'bybit', 'late'));
  assert.equal(tail.add(entry(T0 + 10, 'okx', 'b', { premium_usd: 7 })), false, 'a redelivery is not new');
  const p = tail.page({ ...ALL, fromMs: T0 }, 'asc', 10, null);
  assert.ok(p !== null);
  assert.deepEqual(
    p.trades.map((r) => `${r.venue}:${r.trade_id}`),
    ['bybit:late', 'deribit:z', 'okx:a', 'okx:b'],
  );
  assert.equal(p.trades[3]?.premium_usd, 7);
  assert.equal(tail.size, 4);
});

test('trimming drops the oldest trades and raises the floor to the newest dropped ts (strict)', () => {
  const tail = new SymbolTail(10);
  tail.load([], T0 - 1);
  // 12 trades, two per ms: the 12th exceeds 10 + 1 (10 % slack) → the 2 oldest go, floor = T0 + 0
  for (let i = 0; i < 12; i++) tail.add(entry(T0 + Math.floor(i / 2), 'deribit', `t${String(i).padStart(2, '0')}`));
  assert.equal(tail.size, 10);
  assert.equal(tail.floor, T0);
  assert.equal(tail.page({ ...ALL, fromMs: T0 }, 'desc', 100, null), null, 'ts = floor is not covered');
  const p = tail.page({ ...ALL, fromMs: T0 + 1 }, 'desc', 100, null);
  assert.equal(p?.trades.length, 10);
  assert.equal(tail.add(entry(T0, 'deribit', 'old')), false, 'a trade at the floor is not held');
});

test('a trim that splits the trades of one ms leaves that ms outside the coverage', () => {
  const tail = new SymbolTail(10);
  tail.load([], T0 - 1);
  const all = ['a', 'b', 'c'].map((id) => entry(T0, 'deribit', id));
  for (let i = 0; i < 9; i++) all.push(entry(T0 + 1 + i, 'deribit', `n${i}`));
  for (const e of all) tail.add(e);
  // 12 > 10 + 1: a and b dropped, c (same ms) still held, floor = T0
  assert.equal(tail.floor, T0);
  assert.equal(tail.size, 10);
  assert.equal(tail.page({ ...ALL, fromMs: T0 }, 'desc', 100, null), null, 'c alone would be a wrong answer: a and b are stored too');
  assert.equal(tail.page({ ...ALL, fromMs: T0 }, 'asc', 100, null), null);
  assert.deepEqual(
    tail.page({ ...ALL, fromMs: T0 }, 'desc', 9, null),
    oracle(all, { ...ALL, fromMs: T0 }, 'desc', 9, null),
    'c as the 10th row only says a next page exists',
  );
});

test('a trim before the first load limits what the load can cover', () => {
  const tail = new SymbolTail(4);
  for (let i = 0; i < 6; i++) tail.add(entry(T0 + 10 + i, 'deribit', `b${i}`));
  // 6 > 4 + 1: trimmed to the 4 newest (T0+12..T0+15), dropped up to T0+11
  tail.load([], T0 - 1);
  assert.equal(tail.floor, T0 + 11);
});

test('random histories: every answered page equals the store oracle; the newest pages are answered', () => {
  let seed = 7;
  const rnd = (): number => {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    return seed / 2_147_483_648;
  };
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)] as T;
  const venues = ['binance', 'bybit', 'deribit', 'okx'];
  for (let round = 0; round < 25; round++) {
    const capacity = 20 + Math.floor(rnd() * 200);
    const tail = new SymbolTail(capacity);
    const trade = (i: number, ts: number): TailEntry =>
      entry(ts, pick(venues), `id${i % 50}`, {
        type: pick(['call', 'put'] as const),
        side: pick(['buy', 'sell'] as const),
        premium_usd: Math.floor(rnd() * 5_000),
        block: rnd() < 0.2,
        expiryMs: pick([E1, E2]),
      });
    // history already stored before the process started
    const stored: TailEntry[] = Array.from({ length: 300 }, (_, i) => trade(i, T0 + Math.floor(rnd() * 3_600_000)));
    // the load: the newest `capacity` since the window start (the store read's contract)
    const windowFrom = T0 + 600_000;
    const inWindow = oracle(stored, { ...ALL, fromMs: windowFrom }, 'desc', capacity, null);
    const loadRows: TailEntry[] = [];
    const dedup = new Map<string, TailEntry>();
    for (const e of stored) dedup.set(`${e.ts}|${e.venue}|${e.id}`, e);
    const sortedDesc = [...dedup.values()]
      .filter((e) => e.ts >= windowFrom)
      .sort(compareKeys)
      .reverse();
    loadRows.push(...sortedDesc.slice(0, capacity));
    const oldest = loadRows[loadRows.length - 1];
    tail.load(loadRows, inWindow.nextCursor !== null && oldest !== undefined ? oldest.ts : windowFrom - 1);
    // then the bus: new trades, redeliveries (same key, new content) and late ones
    for (let i = 300; i < 500; i++) {
      const late = rnd() < 0.1;
      const redeliver = !late && rnd() < 0.1 ? pick(stored) : null;
      const e =
        redeliver !== null
          ? { ...redeliver, row: { ...redeliver.row, premium_usd: redeliver.row.premium_usd + 1 } }
          : trade(i, late ? T0 + Math.floor(rnd() * 3_600_000) : T0 + 3_600_000 + i * 1_000);
      stored.push(e);
      tail.add(e);
    }
    let answered = 0;
    for (let q = 0; q < 30; q++) {
      const order: TapeOrder = pick(['asc', 'desc']);
      const f: TapeFilter = {
        ...ALL,
        fromMs: T0 + Math.floor(rnd() * 4_000_000),
        toMs: rnd() < 0.5 ? ALL.toMs : T0 + 3_600_000 + Math.floor(rnd() * 600_000),
        venues: rnd() < 0.3 ? [pick(venues)] : [],
        type: rnd() < 0.3 ? pick(['call', 'put'] as const) : null,
        side: rnd() < 0.3 ? pick(['buy', 'sell'] as const) : null,
        minPremiumUsd: rnd() < 0.3 ? 2_500 : 0,
        block: rnd() < 0.2 ? pick(['only', 'exclude'] as const) : null,
        expiryDates: rnd() < 0.2 ? [utcDate(E2)] : [],
      };
      const limit = 1 + Math.floor(rnd() * 40);
      // walk the pages: from the tail while it answers, then from the oracle (the store), as the route does
      let cursor: TapeCursor | null = null;
      for (let pageNo = 0; pageNo < 50; pageNo++) {
        const want = oracle(stored, f, order, limit, cursor);
        const got = tail.page(f, order, limit, cursor);
        if (got !== null) {
          answered++;
          assert.deepEqual(got, want, `round ${round} query ${q} page ${pageNo}`);
        }
        if (want.nextCursor === null) break;
        cursor = decodeCursor(want.nextCursor);
      }
    }
    // the newest page (default window ending now) is always inside the coverage
    const newest = tail.page({ ...ALL, fromMs: T0 + 3_600_000 }, 'desc', 10, null);
    assert.deepEqual(newest, oracle(stored, { ...ALL, fromMs: T0 + 3_600_000 }, 'desc', 10, null));
    assert.ok(answered > 0);
  }
});
