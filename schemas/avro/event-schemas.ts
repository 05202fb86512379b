/** A JSON Avro schema (avsc's own `Schema` typing rejects readonly literals). */
export type AvroSchemaJson = Readonly<Record<string, unknown>>;

export const AVRO_FAMILIES = ['instrument', 'option_trade', 'option_ticker', 'linear_trade', 'perp_stats', 'liquidation', 'index', 'dead_letter', 'snapshot'] as const;
export type AvroFamily = (typeof AVRO_FAMILIES)[number];

/**
 * Avro schemas of the bus events, one record per family, field names identical to schemas/events.ts.
 * Evolution rule: changes are additive with defaults (a new nullable field defaults to null); never rename or
 * remove a field without an alias. Old writer schemas stay in WRITER_HISTORY so their bytes can be resolved.
 */
const NS = 'gex.md';
const ts = { type: 'long', logicalType: 'timestamp-millis' } as const;
const nullableDouble = { type: ['null', 'double'], default: null } as const;
const nullableTs = { type: ['null', ts], default: null } as const;

const base = [
  { name: 'venue', type: 'string' },
  { name: 'symbol', type: 'string' },
  { name: 'ts', type: ts },
  { name: 'receivedAt', type: ts },
  { name: 'id', type: 'string' },
];
const optionContract = [
  { name: 'instrument', type: 'string' },
  { name: 'strike', type: 'double' },
  { name: 'expiry', type: ts },
  { name: 'optionType', type: { type: 'enum', name: 'OptionType', symbols: ['call', 'put'] } },
];
const takerSide = { type: 'enum', name: 'TakerSide', symbols: ['buy', 'sell'] } as const;

export const EVENT_SCHEMAS: Readonly<Record<AvroFamily, AvroSchemaJson>> = {
  instrument: {
    type: 'record', name: 'Instrument', namespace: NS,
    fields: [
      ...base,
      { name: 'instrument', type: 'string' },
      { name: 'kind', type: { type: 'enum', name: 'InstrumentKind', symbols: ['option', 'perp', 'future', 'spot'] } },
      { name: 'strike', ...nullableDouble },
      { name: 'expiry', ...nullableTs },
      { name: 'optionType', type: ['null', { type: 'enum', name: 'OptionType', symbols: ['call', 'put'] }], default: null },
      { name: 'contractSize', type: 'double' },
      { name: 'settlementCurrency', type: 'string' },
      { name: 'quoteCurrency', type: 'string' },
      { name: 'active', type: 'boolean' },
    ],
  },
  option_trade: {
    type: 'record', name: 'OptionTrade', namespace: NS,
    fields: [
      ...base,
      ...optionContract,
      { name: 'price', type: 'double' },
      { name: 'priceCurrency', type: 'string' },
      { name: 'priceUsd', type: 'double' },
      { name: 'size', type: 'double' },
      { name: 'premiumUsd', type: 'double' },
      { name: 'side', type: takerSide },
      { name: 'iv', ...nullableDouble },
      { name: 'indexPrice', ...nullableDouble },
      { name: 'underlyingPrice', ...nullableDouble },
      { name: 'tradeId', type: 'string' },
      { name: 'block', type: 'boolean', default: false },
    ],
  },
  option_ticker: {
    type: 'record', name: 'OptionTicker', namespace: NS,
    fields: [
      ...base,
      ...optionContract,
      ...['markPrice', 'markIv', 'bidIv', 'askIv', 'delta', 'gamma', 'vega', 'theta', 'openInterest', 'underlyingPrice', 'indexPrice']
        .map((name) => ({ name, ...nullableDouble })),
    ],
  },
  linear_trade: {
    type: 'record', name: 'LinearTrade', namespace: NS,
    fields: [
      ...base,
      { name: 'market', type: { type: 'enum', name: 'LinearMarket', symbols: ['perp', 'spot'] } },
      { name: 'instrument', type: 'string' },
      { name: 'price', type: 'double' },
      { name: 'size', type: 'double' },
      { name: 'side', type: takerSide },
      { name: 'tradeId', type: 'string' },
    ],
  },
  perp_stats: {
    type: 'record', name: 'PerpStats', namespace: NS,
    fields: [
      ...base,
      { name: 'instrument', type: 'string' },
      { name: 'openInterest', ...nullableDouble },
      { name: 'openInterestUsd', ...nullableDouble },
      { name: 'fundingRate', ...nullableDouble },
      { name: 'nextFundingTime', ...nullableTs },
      { name: 'markPrice', ...nullableDouble },
      { name: 'indexPrice', ...nullableDouble },
    ],
  },
  liquidation: {
    type: 'record', name: 'Liquidation', namespace: NS,
    fields: [
      ...base,
      { name: 'instrument', type: 'string' },
      { name: 'side', type: { type: 'enum', name: 'PositionSide', symbols: ['long', 'short'] } },
      { name: 'price', type: 'double' },
      { name: 'size', type: 'double' },
    ],
  },
  index: {
    type: 'record', name: 'IndexPrice', namespace: NS,
    fields: [
      ...base,
      { name: 'kind', type: { type: 'enum', name: 'IndexKind', symbols: ['index', 'vol_index'] } },
      { name: 'name', type: 'string' },
      { name: 'value', type: 'double' },
    ],
  },
  dead_letter: {
    type: 'record', name: 'DeadLetter', namespace: NS,
    fields: [
      { name: 'venue', type: 'string' },
      { name: 'channel', type: 'string' },
      { name: 'reason', type: 'string' },
      { name: 'raw', type: 'string' },
      { name: 'encoding', type: { type: 'enum', name: 'RawEncoding', symbols: ['utf8', 'base64'] } },
      { name: 'receivedAt', type: ts },
      { name: 'id', type: 'string' },
    ],
  },
  snapshot: {
    type: 'record', name: 'AnalyticsSnapshot', namespace: 'gex.analytics',
    fields: [
      { name: 'symbol', type: 'string' },
      { name: 'kind', type: 'string' },
      { name: 'computedAt', type: ts },
      { name: 'payload', type: 'string' },
      { name: 'id', type: 'string' },
    ],
  },
};

/**
 * Writer schemas of earlier releases, kept so bytes written by them still decode. Empty at v1; when a schema
 * changes, append its previous form here (the codec registers every entry by fingerprint).
 */
export const WRITER_HISTORY: readonly { readonly family: AvroFamily; readonly schema: AvroSchemaJson }[] = [];
