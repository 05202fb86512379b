import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ChainQuoteRow } from './chain-quotes.ts';
import { constantMaturity, ivAtDelta, smiles, termStructure } from './smile.ts';

const NOW = Date.UTC(2026, 0, 1);
const DAY = 86_400_000;
const E30 = NOW + 30 * DAY;
// Smile of the vectors below (F 100,000, T 30/365): strike → mark IV, for the call and the put alike
const IVS: Readonly<Record<number, number>> = { 90_000: 0.62, 95_000: 0.56, 100_000: 0.5, 105_000: 0.48, 110_000: 0.49, 120_000: 0.52 };

function row(venue: string, expiry: number, strike: number, type: 'call' | 'put', iv: number | null, oi = 1): ChainQuoteRow {
  return {
    venue,
    instrument: `${venue}-${expiry}-${strike}-${type}`,
    expiry,
    strike,
    option_type: type,
    t_years: (expiry - NOW) / (365 * DAY),
    forward: 100_000,
    bid_price_usd: null,
    ask_price_usd: null,
    bid_size: null,
    ask_size: null,
    mark_price_usd: null,
    last_price_usd: null,
    mark_iv: iv,
    bid_iv: null,
    ask_iv: null,
    delta: null,
    gamma: null,
    vega: null,
    theta: null,
    delta_source: 'none',
    gamma_source: 'none',
    vega_source: 'none',
    theta_source: 'none',
    open_interest: oi,
    volume_24h: null,
  };
}
const smileRows = (venue: string, expiry: number, scale = 1): ChainQuoteRow[] =>
  Object.entries(IVS).flatMap(([k, iv]) => [
    row(venue, expiry, Number(k), 'call', iv * scale),
    row(venue, expiry, Number(k), 'put', iv * scale),
  ]);

const close = (a: number | null | undefined, b: number, tol = 1e-9): void =>
  assert.ok(a !== null && a !== undefined && Math.abs(a - b) <= tol, `${a} vs ${b}`);

test('ivAtDelta: linear in delta between the bracketing neighbours; null outside', () => {
  const pts = [
    { delta: 0.1, iv: 0.6 },
    { delta: 0.5, iv: 0.45 },
    { delta: 0.3, iv: 0.5 },
  ];
  close(ivAtDelta(pts, 0.25), 0.525); // 0.6 + (0.5 − 0.6)·(0.25 − 0.1)/(0.3 − 0.1)
  assert.equal(ivAtDelta(pts, 0.05), null);
  assert.equal(ivAtDelta(pts, 0.55), null);
});

test('smile: OTM points (puts below F, calls from F), Black-76 deltas, ATM, 25Δ call/put, RR and BF (hand-computed vectors)', () => {
  const [s] = smiles(smileRows('deribit', E30), NOW, false);
  assert.ok(s !== undefined);
  assert.equal(s.forward, 100_000);
  assert.deepEqual(
    s.points.map((p) => [p.strike, p.type]),
    [
      [90_000, 'put'],
      [95_000, 'put'],
      [100_000, 'call'],
      [105_000, 'call'],
      [110_000, 'call'],
      [120_000, 'call'],
    ],
  );
  // N(d1) at σ of the strike, F 100,000, T 30/365
  const deltas = [
    -0.24773810238736782, -0.3446650580323021, 0.5285688375454997, 0.38753724889501684, 0.2715180907387798, 0.12539276441428326,
  ];
  s.points.forEach((p, i) => close(p.delta, deltas[i] as number, 1e-12));
  close(s.points[0]?.log_moneyness, Math.log(0.9), 1e-15);
  close(s.atm_iv, 0.5);
  close(s.iv_25d_call, 0.49441773331427746); // 110k (Δ 0.2715, σ 0.49) – 120k (Δ 0.1254, σ 0.52)
  close(s.iv_25d_put, 0.618599833701008); // 95k (Δ −0.3447, σ 0.56) – 90k (Δ −0.2477, σ 0.62)
  close(s.rr_25d, 0.49441773331427746 - 0.618599833701008);
  close(s.bf_25d, (0.49441773331427746 + 0.618599833701008) / 2 - 0.5);
});

test('smile across venues: OI-weighted mark IV per contract; per-venue curves; ATM at K = F between strikes; unspanned wings null', () => {
  const rows = [...smileRows('deribit', E30), row('okx', E30, 100_000, 'call', 0.6, 3), row('okx', E30, 100_000, 'put', 0.6, 3)];
  const [s] = smiles(rows, NOW, true);
  close(s?.atm_iv, (1 * 0.5 + 3 * 0.6) / 4); // 100k: OI-weighted 0.575
  assert.deepEqual(
    s?.venues?.map((v) => v.venue),
    ['deribit', 'okx'],
  );
  close(s?.venues?.[0]?.atm_iv, 0.5);
  const okx = s?.venues?.[1];
  close(okx?.atm_iv, 0.6);
  assert.deepEqual([okx?.iv_25d_call, okx?.iv_25d_put, okx?.rr_25d, okx?.bf_25d], [null, null, null, null]);
  // F between listed strikes: 102,500 → halfway between 100k (0.5) and 105k (0.48)
  const shifted = smileRows('deribit', E30).map((r) => ({ ...r, forward: 102_500 }));
  close(smiles(shifted, NOW, false)[0]?.atm_iv, 0.49);
});

test('term structure: ATM per expiry, constant maturity in total variance, flat before the front, null after the last', () => {
  const E7 = NOW + 7 * DAY;
  const rows = [...smileRows('deribit', E7), ...smileRows('deribit', E30, 1.2)]; // ATM 0.5 at 7 d, 0.6 at 30 d
  const ts = termStructure(rows, NOW);
  assert.deepEqual(
    ts.expiries.map((e) => [e.expiry, e.atm_iv]),
    [
      [E7, 0.5],
      [E30, 0.6],
    ],
  );
  const cm = Object.fromEntries(ts.constant_maturity.map((p) => [p.days, p]));
  assert.deepEqual([cm[1]?.atm_iv, cm[1]?.method, cm[1]?.expiries], [0.5, 'flat_front', [E7]]);
  close(cm[7]?.atm_iv, 0.5);
  // 14 d: σ²T = 0.25·7/365 + (0.36·30/365 − 0.25·7/365)·(14 − 7)/(30 − 7) → σ = 0.5672205306887107
  close(
    constantMaturity(
      [
        { expiry: E7, t: 7 / 365, iv: 0.5 },
        { expiry: E30, t: 30 / 365, iv: 0.6 },
      ],
      14 / 365,
    ).atm_iv,
    0.5672205306887107,
  );
  close(cm[30]?.atm_iv, 0.6);
  assert.deepEqual([cm[30]?.method, cm[30]?.expiries], ['interpolated', [E7, E30]]);
  assert.deepEqual([cm[60]?.atm_iv, cm[60]?.method, cm[180]?.atm_iv], [null, null, null]);
});
