/**
 * Every event family, declared once (the DSL is schemas/family-dsl.ts). The TypeScript types (schemas/events.ts),
 * the Avro schemas (schemas/avro/event-schemas.ts), the ClickHouse rows (clickhouse/rows.ts) derive from these;
 * clickhouse/columns.test.ts checks the migrations' columns against them.
 *
 * Adding a field: append it here as `added(optional(...))` (old writers still resolve: Avro default null; the
 * TypeScript property is optional, so producers that do not fill it need no edit; the row mapper stores NULL)
 * and add the column in a NEW migration (`ALTER TABLE t ADD COLUMN IF NOT EXISTS ...`). Field order is the Avro
 * field order: append, never reorder. Units: see schemas/events.ts.
 */
import { SYMBOLS, VENUES } from './markets.ts';
import { added, boolean, double, enumOf, family, optional, string, stringOf, timestampMs } from './family-dsl.ts';

export const TAKER_SIDES = ['buy', 'sell'] as const;
export const OPTION_TYPES = ['call', 'put'] as const;
export const INSTRUMENT_KINDS = ['option', 'perp', 'future', 'spot'] as const;

const NS = 'gex.md';

/** Common to every market event. */
const base = [
  stringOf('venue', VENUES, { lowCardinality: true }),
  stringOf('symbol', SYMBOLS, { lowCardinality: true }),
  timestampMs('ts', { doc: 'Venue event time, ms UTC.' }),
  timestampMs('receivedAt', { doc: 'Local receive time, ms UTC.' }),
  string('id', { doc: 'Stable id for idempotent writes.' }),
] as const;

const optionContract = [
  string('instrument', { doc: "Venue's instrument name (e.g. BTC-27MAR26-85000-C)." }),
  double('strike', { doc: 'USD.' }),
  timestampMs('expiry', { doc: 'Expiry instant, ms UTC.' }),
  enumOf('optionType', 'OptionType', OPTION_TYPES),
] as const;

const takerSide = enumOf('side', 'TakerSide', TAKER_SIDES, { doc: 'Taker (aggressor) side.' });

export const INSTRUMENT = family({
  record: 'Instrument',
  namespace: NS,
  doc: 'A listed contract (reference data).',
  fields: [
    ...base,
    string('instrument'),
    enumOf('kind', 'InstrumentKind', INSTRUMENT_KINDS),
    optional(double('strike', { doc: 'Options only.' })),
    optional(timestampMs('expiry', { doc: 'Options and futures: expiry instant, ms UTC.' })),
    optional(enumOf('optionType', 'OptionType', OPTION_TYPES)),
    double('contractSize', { doc: 'Coins of underlying per contract (Deribit option 1, OKX BTC-USD option 0.01, Delta 0.001, ...).' }),
    string('settlementCurrency', { lowCardinality: true }),
    string('quoteCurrency', { lowCardinality: true }),
    boolean('active', { doc: 'Currently tradable.' }),
  ],
});

export const OPTION_TRADE = family({
  record: 'OptionTrade',
  namespace: NS,
  doc: 'One option trade.',
  fields: [
    ...base,
    ...optionContract,
    double('price', { doc: 'As quoted by the venue, in `priceCurrency`.' }),
    string('priceCurrency', { lowCardinality: true }),
    double('priceUsd', { doc: 'USD per coin of underlying.' }),
    double('size', { doc: 'Coins of underlying.' }),
    double('premiumUsd', { doc: 'priceUsd × size.' }),
    takerSide,
    optional(double('iv', { doc: 'Trade IV, fraction.' })),
    optional(double('indexPrice', { doc: 'USD.' })),
    optional(double('underlyingPrice', { doc: 'USD (forward / future the venue prices against).' })),
    string('tradeId', { doc: 'Venue trade id.' }),
    boolean('block', { doc: 'Block trade.', avroDefault: false }),
  ],
});

export const OPTION_TICKER = family({
  record: 'OptionTicker',
  namespace: NS,
  doc: 'Option quote, mark, greeks and open interest.',
  fields: [
    ...base,
    ...optionContract,
    optional(double('markPrice', { doc: 'USD per coin of underlying.' })),
    optional(double('markIv', { doc: 'Fraction.' })),
    optional(double('bidIv', { doc: 'Fraction.' })),
    optional(double('askIv', { doc: 'Fraction.' })),
    optional(double('delta', { doc: "The venue's greek as published." })),
    optional(double('gamma', { doc: "The venue's greek as published." })),
    optional(double('vega', { doc: "The venue's greek as published." })),
    optional(double('theta', { doc: "The venue's greek as published." })),
    optional(double('openInterest', { doc: 'Coins of underlying.' })),
    optional(double('underlyingPrice', { doc: "The expiry's forward / underlying future price the venue prices against." })),
    optional(double('indexPrice', { doc: 'USD.' })),
    // Added in migration 050 (ingest/README.md: which venue publishes which).
    added(
      optional(
        string('priceCurrency', {
          doc: 'Currency of bidPrice, askPrice and lastPrice as the venue quotes them (BTC, ETH, USD, USDC, USDT).',
          lowCardinality: true,
        }),
      ),
    ),
    added(optional(double('bidPrice', { doc: 'Best bid, in `priceCurrency` per coin of underlying.' }))),
    added(optional(double('askPrice', { doc: 'Best ask, in `priceCurrency` per coin of underlying.' }))),
    added(optional(double('bidPriceUsd', { doc: 'Best bid, USD per coin of underlying.' }))),
    added(optional(double('askPriceUsd', { doc: 'Best ask, USD per coin of underlying.' }))),
    added(optional(double('bidSize', { doc: 'Size at the best bid, coins of underlying.' }))),
    added(optional(double('askSize', { doc: 'Size at the best ask, coins of underlying.' }))),
    added(optional(double('lastPrice', { doc: 'Last trade price, in `priceCurrency` per coin of underlying.' }))),
    added(optional(double('lastPriceUsd', { doc: 'Last trade price, USD per coin of underlying.' }))),
    added(optional(double('volume24h', { doc: 'Traded volume over the last 24 h, coins of underlying.' }))),
  ],
});

export const LINEAR_TRADE = family({
  record: 'LinearTrade',
  namespace: NS,
  doc: 'Perpetual or spot trade (same shape; `market` tells which).',
  fields: [
    ...base,
    enumOf('market', 'LinearMarket', ['perp', 'spot']),
    string('instrument', { doc: 'e.g. BTCUSDT, BTC-PERPETUAL.' }),
    double('price', { doc: 'USD per coin.' }),
    double('size', { doc: 'Coins.' }),
    takerSide,
    string('tradeId', { doc: 'Venue trade id.' }),
  ],
});

export const PERP_STATS = family({
  record: 'PerpStats',
  namespace: NS,
  doc: 'Perpetual open interest, funding and marks.',
  fields: [
    ...base,
    string('instrument'),
    optional(double('openInterest', { doc: 'Coins.' })),
    optional(double('openInterestUsd', { doc: 'USD.' })),
    optional(double('fundingRate', { doc: 'Per funding interval, fraction (0.0001 = 1 bp).' })),
    optional(timestampMs('nextFundingTime')),
    optional(double('markPrice', { doc: 'USD per coin.' })),
    optional(double('indexPrice', { doc: 'USD per coin.' })),
  ],
});

export const LIQUIDATION = family({
  record: 'Liquidation',
  namespace: NS,
  doc: 'A forced close.',
  fields: [
    ...base,
    string('instrument'),
    enumOf('side', 'PositionSide', ['long', 'short'], { doc: "Side of the liquidated POSITION ('long' = a long was force-sold)." }),
    double('price', { doc: 'USD per coin.' }),
    double('size', { doc: 'Coins.' }),
  ],
});

export const INDEX_PRICE = family({
  record: 'IndexPrice',
  namespace: NS,
  doc: 'An underlying index or a volatility index.',
  fields: [
    ...base,
    enumOf('kind', 'IndexKind', ['index', 'vol_index'], {
      doc: "'index' = underlying index price; 'vol_index' = volatility index such as Deribit DVOL (value in vol points).",
    }),
    string('name', { doc: "Venue's index name (e.g. btc_usd, btcdvol_usdc).", lowCardinality: true }),
    double('value'),
  ],
});

export const DEAD_LETTER = family({
  record: 'DeadLetter',
  namespace: NS,
  doc: 'A frame that failed to parse or validate. Never dropped silently.',
  fields: [
    string('venue', { lowCardinality: true }),
    string('channel', { doc: 'Venue channel / topic.', lowCardinality: true }),
    string('reason', { doc: 'Why it was rejected.' }),
    string('raw', { doc: "The raw frame (UTF-8, or base64 for binary frames with `encoding` = 'base64')." }),
    enumOf('encoding', 'RawEncoding', ['utf8', 'base64']),
    timestampMs('receivedAt'),
    string('id'),
  ],
});

export const ANALYTICS_SNAPSHOT = family({
  record: 'AnalyticsSnapshot',
  namespace: 'gex.analytics',
  doc: 'An analytics snapshot published for the WebSocket feed. `payload` is the JSON document.',
  fields: [stringOf('symbol', SYMBOLS), string('kind'), timestampMs('computedAt'), string('payload'), string('id')],
});

/** Every family by its Avro family name (schemas/avro/event-schemas.ts); perp and spot trades share LINEAR_TRADE. */
export const EVENT_FAMILIES = {
  instrument: INSTRUMENT,
  option_trade: OPTION_TRADE,
  option_ticker: OPTION_TICKER,
  linear_trade: LINEAR_TRADE,
  perp_stats: PERP_STATS,
  liquidation: LIQUIDATION,
  index: INDEX_PRICE,
  dead_letter: DEAD_LETTER,
  snapshot: ANALYTICS_SNAPSHOT,
} as const;
