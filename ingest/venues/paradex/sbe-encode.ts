/**
 * Test / bench only: builds Paradex SBE frames with Buffer writes from the published schema layout (the
 * decoder's mirror), so tests can use exact bytes without recorded binary captures.
 */
export interface TradeFrame {
  readonly timestampUs: bigint;
  readonly seqNo: bigint;
  readonly tradeId: bigint;
  readonly side: number;
  readonly price: bigint;
  readonly size: bigint;
  readonly createdAtUs: bigint;
  readonly tradeType: number;
  readonly market: string;
  readonly version?: number;
}

export const NULL_I64 = -(2n ** 63n);

function header(blockLength: number, template: number, version: number, schema = 1): Buffer {
  const h = Buffer.alloc(8);
  h.writeUInt16LE(blockLength, 0);
  h.writeUInt16LE(template, 2);
  h.writeUInt16LE(schema, 4);
  h.writeUInt16LE(version, 6);
  return h;
}

function varString(s: string): Buffer {
  const body = Buffer.from(s, 'utf8');
  return Buffer.concat([Buffer.from([body.length]), body]);
}

export function encodeTrade(t: TradeFrame): Buffer {
  const b = Buffer.alloc(50);
  b.writeBigInt64LE(t.timestampUs, 0);
  b.writeBigInt64LE(t.seqNo, 8);
  b.writeBigInt64LE(t.tradeId, 16);
  b.writeUInt8(t.side, 24);
  b.writeBigInt64LE(t.price, 25);
  b.writeBigInt64LE(t.size, 33);
  b.writeBigInt64LE(t.createdAtUs, 41);
  b.writeUInt8(t.tradeType, 49);
  return Buffer.concat([header(50, 1, t.version ?? 1), b, varString(t.market)]);
}

/** MarketSummaryEvent: `fields` = the 27 (v0) or 30 (v1) int64 slots in schema order. */
export function encodeMarketSummary(fields: readonly bigint[], market: string, version = 1): Buffer {
  const b = Buffer.alloc(fields.length * 8);
  fields.forEach((v, i) => b.writeBigInt64LE(v, i * 8));
  return Buffer.concat([header(b.length, 4, version), b, varString(market)]);
}

export function encodeFundingData(
  f: {
    ts: bigint;
    seq: bigint;
    rate: bigint;
    index: bigint;
    created: bigint;
    premium: bigint;
    rate8h: bigint;
    hours: number;
    impact?: bigint;
  },
  market: string,
): Buffer {
  const b = Buffer.alloc(f.impact === undefined ? 58 : 66);
  [f.ts, f.seq, f.rate, f.index, f.created, f.premium, f.rate8h].forEach((v, i) => b.writeBigInt64LE(v, i * 8));
  b.writeInt16LE(f.hours, 56);
  if (f.impact !== undefined) b.writeBigInt64LE(f.impact, 58);
  return Buffer.concat([header(b.length, 5, f.impact === undefined ? 0 : 1), b, varString(market)]);
}

export function encodeHeartbeat(ts: bigint, template = 40): Buffer {
  const b = Buffer.alloc(16);
  b.writeBigInt64LE(ts, 0);
  return Buffer.concat([header(16, template, 1), b]);
}

export { header as sbeHeader };
