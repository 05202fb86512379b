import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { createSandboxMarket } from './market.ts';
import { SYMBOL_PARAMS } from './symbols.ts';
import { smileVol, atmVol } from './smile.ts';
import { greeks, price } from '#processors/analytics/black76.ts';
import type { MarketEvent, OptionTrade } from '#schemas/events.ts';

const START = Date.UTC(2026, 0, 5, 12, 0, 0);

describe('sandbox market model', () => {
  test('deterministic: same seed -> identical events, independent of how time is chunked', () => {
    const a = createSandboxMarket({ seed: 7, startMs: START });
    const b = createSandboxMarket({ seed: 7, startMs: START });
    const ea = a.step(30_000);
    const eb: MarketEvent[] = [];
    for (let i = 0; i < 120; i++) eb.push(...b.step(250));
    assert.ok(ea.length > 10_000);
    assert.equal(JSON.stringify(ea), JSON.stringify(eb));
    assert.deepEqual(a.instruments('okx'), b.instruments('okx'));
    const c = createSandboxMarket({ seed: 8, startMs: START });
    assert.notEqual(JSON.stringify(c.step(30_000)), JSON.stringify(ea));
  });

  test('spot path of a symbol does not depend on the venue set', () => {
    const all = createSandboxMarket({ seed: 3, startMs: START });
    const one = createSandboxMarket({ seed: 3, startMs: START, venues: ['bybit'] });
    all.step(60_000);
    one.step(60_000);
    assert.equal(all.spot('BTCUSDT'), one.spot('BTCUSDT'));
  });

  test('start prices and vol index are realistic', () => {
    const m = createSandboxMarket({ seed: 1, startMs: START });
    m.step(60_000);
    assert.ok(Math.abs(m.spot('BTCUSDT') / 95_000 - 1) < 0.05);
    assert.ok(Math.abs(m.spot('ETHUSDT') / 3_500 - 1) < 0.05);
    assert.ok(Math.abs(m.spot('SOLUSDT') / 180 - 1) < 0.05);
    assert.ok(Math.abs(m.spot('HYPEUSDT') / 35 - 1) < 0.06);
    const dvol = m.volIndex('BTCUSDT');
    assert.ok(dvol !== null && dvol > 35 && dvol < 75, `BTC DVOL ${dvol}`);
    assert.equal(m.volIndex('SOLUSDT'), null);
  });

  test('smile: put skew, convexity, upward term structure; Black-76 parity', () => {
    const p = SYMBOL_PARAMS.BTCUSDT;
    const F = 95_000;
    const T = 30 / 365;
    const atm = smileVol(p, 0.52, F, F, T);
    const put80 = smileVol(p, 0.52, F, F * 0.8, T);
    const call120 = smileVol(p, 0.52, F, F * 1.2, T);
    const call150 = smileVol(p, 0.52, F, F * 1.5, T);
    assert.ok(put80 > atm * 1.1, `25% OTM put ${put80} vs atm ${atm}`);
    assert.ok(call150 > call120, 'call wing curves up');
    assert.ok(put80 > smileVol(p, 0.52, F, F / 0.8, T), 'puts richer than equidistant calls');
    assert.ok(atmVol(0.52, 1 / 365) < atmVol(0.52, 0.5));
    const c = { price: price('call', F, 100_000, atm, T), ...greeks('call', F, 100_000, atm, T) };
    const q = { price: price('put', F, 100_000, atm, T), ...greeks('put', F, 100_000, atm, T) };
    assert.ok(Math.abs(c.price - q.price - (F - 100_000)) < 1e-6);
    assert.ok(c.delta > 0 && c.delta < 0.5 && q.delta < 0 && c.gamma > 0 && c.vega > 0 && c.theta < 0);
  });

  test('listings: 08:00 UTC expiries (Delta 12:00), venue names, contract sizes', () => {
    const m = createSandboxMarket({ seed: 1, startMs: START });
    assert.equal(m.venues.length, 10);
    for (const v of m.venues) {
      const opts = m.instruments(v).filter((i) => i.kind === 'option');
      assert.ok(opts.length > (['deribit', 'bybit', 'okx', 'binance'].includes(v) ? 300 : 150), `${v} has ${opts.length} options`);
      for (const o of opts) {
        const d = new Date(o.expiry ?? 0);
        assert.equal(d.getUTCHours(), v === 'delta' || v === 'delta_india' ? 12 : 8, `${v} ${o.instrument}`);
        assert.ok((o.expiry ?? 0) > START);
      }
    }
    const name = (v: Parameters<typeof m.instruments>[0]): string => m.instruments(v).find((i) => i.kind === 'option')?.instrument ?? '';
    assert.match(name('derive'), /^BTC-\d{8}-\d+-[CP]$/);
    assert.match(name('thalex'), /^BTC-\d{1,2}[A-Z]{3}\d{2}-\d+-[CP]$/);
    assert.match(name('delta_india'), /^[CP]-BTC-\d+-\d{6}$/);
    assert.match(name('bullish'), /^BTC-USDC-\d{8}-\d+-[CP]$/);
    assert.match(name('paradex'), /^BTC-USD-\d{1,2}[A-Z]{3}\d{2}-\d+-[CP]$/);
    assert.equal(m.instruments('delta').find((i) => i.kind === 'option' && i.symbol === 'ETHUSDT')?.contractSize, 0.01);
    assert.deepEqual(
      m
        .instruments('delta_india')
        .filter((i) => i.kind === 'perp')
        .map((i) => [i.instrument, i.contractSize]),
      [
        ['BTCUSD', 0.001],
        ['ETHUSD', 0.01],
        ['SOLUSD', 1],
      ],
    );
    const okx = m.instruments('okx').find((i) => i.kind === 'option' && i.symbol === 'BTCUSDT');
    assert.match(okx?.instrument ?? '', /^BTC-USD-\d{6}-\d+-[CP]$/);
    assert.equal(okx?.contractSize, 0.01);
    assert.match(
      m.instruments('deribit').find((i) => i.symbol === 'SOLUSDT' && i.kind === 'option')?.instrument ?? '',
      /^SOL_USDC-\d{1,2}[A-Z]{3}\d{2}-[\dd]+-[CP]$/,
    );
    assert.match(m.instruments('binance').find((i) => i.kind === 'option')?.instrument ?? '', /^BTC-\d{6}-\d+-[CP]$/);
    assert.match(m.instruments('bybit').find((i) => i.kind === 'option')?.instrument ?? '', /^BTC-\d{1,2}[A-Z]{3}\d{2}-\d+-[CP]$/);
    // Friday weeklies/monthlies exist, dailies too
    const exp = new Set(
      m
        .instruments('deribit')
        .filter((i) => i.symbol === 'BTCUSDT' && i.kind === 'option')
        .map((i) => i.expiry ?? 0),
    );
    assert.ok(exp.size >= 8);
    assert.ok([...exp].some((e) => new Date(e).getUTCDay() === 5));
    assert.ok([...exp].some((e) => e - START < 86_400_000));
  });

  test('customer flow: takers net buy OTM options; ITM balanced; OI moves by trade size', () => {
    const m = createSandboxMarket({ seed: 11, startMs: START, venues: ['deribit'], symbols: ['BTCUSDT'], flow: { customerBuyBias: 0.15 } });
    const trades = m.burst('deribit', 6000).map((e) => e.event as OptionTrade);
    const otm = trades.filter((t) => (t.optionType === 'call' ? t.strike > (t.underlyingPrice ?? 0) : t.strike < (t.underlyingPrice ?? 0)));
    const itm = trades.filter((t) => !otm.includes(t));
    const buyOtm = otm.filter((t) => t.side === 'buy').length / otm.length;
    const buyItm = itm.filter((t) => t.side === 'buy').length / Math.max(1, itm.length);
    assert.ok(buyOtm > 0.61 && buyOtm < 0.69, `OTM buy share ${buyOtm}`);
    assert.ok(itm.length < 100 || Math.abs(buyItm - 0.5) < 0.08, `ITM buy share ${buyItm}`);
    // Buyers pay above mark, sellers below; premium = priceUsd × size; priceUsd = price × index (inverse)
    for (const t of trades.slice(0, 200)) {
      assert.equal(t.priceUsd, t.price * (t.indexPrice ?? 0));
      assert.equal(t.premiumUsd, t.priceUsd * t.size);
      assert.equal(t.priceCurrency, 'BTC');
      assert.ok(t.size >= 0.1 && Math.abs(t.size * 10 - Math.round(t.size * 10)) < 1e-9);
    }
    // OI: sum of OI changed by exactly ±size per trade
    const m2 = createSandboxMarket({ seed: 12, startMs: START, venues: ['okx'], symbols: ['ETHUSDT'] });
    const chain = m2.chains('okx')[0];
    assert.ok(chain);
    const before = new Map(chain.contracts.map((c) => [c.instrument, c.oi]));
    const t = m2.burst('okx', 1)[0]?.event as OptionTrade;
    const after = chain.get(t.instrument)?.oi ?? 0;
    assert.ok(Math.abs(Math.abs(after - (before.get(t.instrument) ?? 0)) - t.size) < 1e-9);
    const total0 = [...before.values()].reduce((a, b) => a + b, 0);
    const more = m2.burst('okx', 500).map((e) => e.event as OptionTrade);
    const total1 = chain.contracts.reduce((a, c) => a + c.oi, 0);
    assert.ok(total1 > total0, 'opening probability 0.6 grows OI');
    assert.ok(
      more.every((x) => Math.abs(x.size / 0.1 - Math.round(x.size / 0.1)) < 1e-9),
      'OKX ETH sizes are whole contracts of 0.1 ETH',
    );
  });

  test('liquidations only where the venue publishes them (Paradex prints them as trades too)', () => {
    const m = createSandboxMarket({ seed: 5, startMs: START, venues: ['paradex', 'derive'] });
    const burst = m.burstLiquidations('paradex', 4);
    assert.deepEqual(
      burst.map((e) => e.type),
      ['perp_trade', 'liquidation', 'perp_trade', 'liquidation', 'perp_trade', 'liquidation', 'perp_trade', 'liquidation'],
    );
    assert.throws(() => m.burstLiquidations('derive', 1), /no liquidations/);
    m.step(600_000);
    assert.equal(m.ledger.count('derive', 'liquidation'), 0);
    assert.ok(m.ledger.count('derive', 'perp_trade') > 0);
  });

  test('perps, funding, liquidations, ledger', () => {
    const m = createSandboxMarket({ seed: 5, startMs: START });
    const ev = m.step(120_000);
    const stats = ev.filter((e) => e.type === 'perp_stats');
    assert.ok(stats.length >= 120 * 15);
    for (const s of stats) {
      if (s.type !== 'perp_stats') continue;
      assert.ok(Math.abs(s.event.fundingRate ?? 1) < 0.003);
      assert.ok((s.event.openInterest ?? 0) > 0);
      assert.equal((s.event.nextFundingTime ?? 0) % (8 * 3600 * 1000), 0);
    }
    const trades = ev.filter(
      (e) => e.type === 'option_trade' || e.type === 'perp_trade' || e.type === 'spot_trade' || e.type === 'liquidation',
    );
    const total = m.venues.reduce((n, v) => n + m.ledger.count(v), 0);
    assert.equal(total, trades.length);
    const ids = m.ledger.ids('deribit', 'option_trade');
    assert.equal(new Set(ids).size, ids.length, 'trade ids unique');
    assert.ok(ev.some((e) => e.type === 'index' && e.event.kind === 'vol_index'));
  });

  test('liquidations burst on the losing side after a jump', () => {
    // Search seeds for a large jump within 2 hours and check the burst side.
    for (let seed = 1; seed < 40; seed++) {
      const m = createSandboxMarket({ seed, startMs: START, venues: ['bybit'], symbols: ['HYPEUSDT'] });
      for (let i = 0; i < 72_000; i++) {
        const before = m.spot('HYPEUSDT');
        const ev = m.step(100);
        const ret = Math.log(m.spot('HYPEUSDT') / before);
        const liqs = ev.filter((e) => e.type === 'liquidation');
        if (Math.abs(ret) > 0.01 && liqs.length >= 3) {
          const want = ret < 0 ? 'long' : 'short';
          const share = liqs.filter((l) => l.type === 'liquidation' && l.event.side === want).length / liqs.length;
          assert.ok(share > 0.7, `burst side share ${share}`);
          return;
        }
      }
    }
    assert.fail('no jump-driven liquidation burst found');
  });
});
