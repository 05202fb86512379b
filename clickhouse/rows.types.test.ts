/**
 * The inferred row types hold the v1 hand-written interfaces exactly (copied below from clickhouse/rows.ts at commit
 * 19bd6f3; fields added later are not compared): checked by the compiler (tsc fails on a difference in name, type or
 * readonly-ness); the test itself only needs to load.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { exact, type Equal, type Flat } from '#schemas/testing/type-equality.ts';
import type * as R from './rows.ts';

type Ms = number;

interface V1BaseRow {
  readonly venue: string;
  readonly symbol: string;
  readonly ts: Ms;
  readonly received_at: Ms;
  readonly id: string;
}

interface V1InstrumentRow extends V1BaseRow {
  readonly instrument: string;
  readonly kind: string;
  readonly strike: number | null;
  readonly expiry: Ms | null;
  readonly option_type: string | null;
  readonly contract_size: number;
  readonly settlement_currency: string;
  readonly quote_currency: string;
  readonly active: boolean;
}

interface V1OptionTradeRow extends V1BaseRow {
  readonly instrument: string;
  readonly strike: number;
  readonly expiry: Ms;
  readonly option_type: string;
  readonly price: number;
  readonly price_currency: string;
  readonly price_usd: number;
  readonly size: number;
  readonly premium_usd: number;
  readonly side: string;
  readonly iv: number | null;
  readonly index_price: number | null;
  readonly underlying_price: number | null;
  readonly trade_id: string;
  readonly block: boolean;
}

interface V1OptionTickerRow extends V1BaseRow {
  readonly instrument: string;
  readonly strike: number;
  readonly expiry: Ms;
  readonly option_type: string;
  readonly mark_price: number | null;
  readonly mark_iv: number | null;
  readonly bid_iv: number | null;
  readonly ask_iv: number | null;
  readonly delta: number | null;
  readonly gamma: number | null;
  readonly vega: number | null;
  readonly theta: number | null;
  readonly open_interest: number | null;
  readonly underlying_price: number | null;
  readonly index_price: number | null;
}

/** perp_trades and spot_trades. */
interface V1LinearTradeRow extends V1BaseRow {
  readonly market: string;
  readonly instrument: string;
  readonly price: number;
  readonly size: number;
  readonly side: string;
  readonly trade_id: string;
}

interface V1PerpStatsRow extends V1BaseRow {
  readonly instrument: string;
  readonly open_interest: number | null;
  readonly open_interest_usd: number | null;
  readonly funding_rate: number | null;
  readonly next_funding_time: Ms | null;
  readonly mark_price: number | null;
  readonly index_price: number | null;
}

interface V1LiquidationRow extends V1BaseRow {
  readonly instrument: string;
  readonly side: string;
  readonly price: number;
  readonly size: number;
}

interface V1IndexPriceRow extends V1BaseRow {
  readonly kind: string;
  readonly name: string;
  readonly value: number;
}

interface V1DeadLetterRow {
  readonly venue: string;
  readonly channel: string;
  readonly reason: string;
  readonly raw: string;
  readonly encoding: string;
  readonly received_at: Ms;
  readonly id: string;
}

test('derived row types equal the v1 row interfaces', () => {
  exact<Equal<Pick<R.InstrumentRow, keyof V1InstrumentRow>, Flat<V1InstrumentRow>>>(true);
  exact<Equal<Pick<R.OptionTradeRow, keyof V1OptionTradeRow>, Flat<V1OptionTradeRow>>>(true);
  exact<Equal<Pick<R.OptionTickerRow, keyof V1OptionTickerRow>, Flat<V1OptionTickerRow>>>(true);
  exact<Equal<Pick<R.LinearTradeRow, keyof V1LinearTradeRow>, Flat<V1LinearTradeRow>>>(true);
  exact<Equal<Pick<R.PerpStatsRow, keyof V1PerpStatsRow>, Flat<V1PerpStatsRow>>>(true);
  exact<Equal<Pick<R.LiquidationRow, keyof V1LiquidationRow>, Flat<V1LiquidationRow>>>(true);
  exact<Equal<Pick<R.IndexPriceRow, keyof V1IndexPriceRow>, Flat<V1IndexPriceRow>>>(true);
  exact<Equal<Pick<R.DeadLetterRow, keyof V1DeadLetterRow>, Flat<V1DeadLetterRow>>>(true);
  assert.ok(true);
});
