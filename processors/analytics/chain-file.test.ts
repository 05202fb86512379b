import { test } from 'node:test';
import assert from 'node:assert/strict';
import { computeLevelsFromChain, parseChainFile } from './chain-file.ts';

const strikes = [85_000, 90_000, 95_000, 100_000, 105_000, 110_000, 115_000];
const callOi = [50, 120, 300, 800, 1400, 1100, 600];
const putOi = [900, 1500, 1200, 700, 250, 80, 20];
const file = {
  symbol: 'BTCUSDT',
  now: '2026-01-01T00:00:00Z',
  spot: 100_000,
  perp_price: null,
  instruments: strikes.flatMap((k, i) =>
    (['call', 'put'] as const).map((type) => ({
      venue: 'deribit',
      strike: k,
      expiry: '2026-01-08T00:00:00.000Z',
      type,
      open_interest: type === 'call' ? callOi[i] : putOi[i],
      mark_iv: 0.5,
      forward: 100_000,
    })),
  ),
};

test('valid §11.5 chain file parses and yields the §11.5 levels with every block', () => {
  const r = parseChainFile(JSON.parse(JSON.stringify(file)));
  assert.ok(r.ok);
  if (!r.ok) return;
  assert.equal(r.chain.now, Date.UTC(2026, 0, 1));
  assert.equal(r.chain.instruments.length, 14);
  const l = computeLevelsFromChain(r.chain, 'flow');
  assert.equal(l.positioning, 'std'); // no dealer_inventory in the file -> fallback
  assert.ok(Math.abs((l.all_expiry.hvl ?? 0) - 98_988.13) < 0.01);
  assert.equal(l.all_expiry.call_resistance, 105_000);
  assert.deepEqual(l.max_pain, { strike: 100_000, value: 5_800_000 });
  assert.deepEqual(l.spot, { spot_price: 100_000, perps_price: null });
  assert.ok(l.ranked !== undefined && l.expected_move !== undefined && l.gamma_flip_zones !== undefined);
});

test('dealer_inventory and null mark_iv are accepted', () => {
  const f = {
    ...file,
    instruments: [
      { ...file.instruments[0], dealer_inventory: -3 },
      { ...file.instruments[1], mark_iv: null },
    ],
  };
  const r = parseChainFile(f);
  assert.ok(r.ok);
  if (!r.ok) return;
  assert.equal(r.chain.instruments[0]?.dealerInventory, -3);
  assert.equal(r.chain.instruments[1]?.markIv, null);
});

test('every error is reported with its path', () => {
  const r = parseChainFile({
    symbol: 'DOGEUSDT',
    now: 'yesterday',
    spot: -1,
    perp_price: 'x',
    instruments: [
      {
        venue: 'ftx',
        strike: 0,
        expiry: '2026-01-08',
        type: 'straddle',
        open_interest: -1,
        mark_iv: 55,
        forward: 0,
        dealer_inventory: 'a',
      },
      7,
    ],
  });
  assert.equal(r.ok, false);
  if (r.ok) return;
  for (const p of [
    'symbol:',
    'now:',
    'spot:',
    'perp_price:',
    'instruments[0].venue:',
    'instruments[0].strike:',
    'instruments[0].expiry:',
    'instruments[0].type:',
    'instruments[0].open_interest:',
    'instruments[0].mark_iv:',
    'instruments[0].forward:',
    'instruments[0].dealer_inventory:',
    'instruments[1]:',
  ])
    assert.ok(
      r.errors.some((e) => e.startsWith(p)),
      `missing error ${p}: ${r.errors.join(' | ')}`,
    );
  assert.deepEqual(parseChainFile([]), { ok: false, errors: ['$: must be a JSON object'] });
  assert.equal(parseChainFile({ ...file, instruments: 'x' }).ok, false);
});
