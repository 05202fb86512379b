/**
 * Decoder for Paradex public SBE frames (schema id 1, `paradex_1_0.xml`; layout as published with paradex-py
 * api/sbe). Little-endian. Header `<HHHH>` = blockLength, templateId, schemaId, version; then the fixed root
 * block of `blockLength` bytes (newer schema versions append fields: read what the block holds, skip the rest);
 * then the var-strings (1-byte length). Prices are int64 fixed point ×1e-8 with INT64_MIN = null; times µs.
 * Never throws: a short, truncated or unknown frame is `{ ok: false, reason }`.
 */

export const SBE_SCHEMA_ID = 1;
export const TEMPLATE = { trade: 1, bbo: 2, book: 3, marketSummary: 4, fundingData: 5, heartbeat: 40, subscribed: 41 } as const;
const HEADER = 8;
const TRADE_BLOCK = 50;
const SUMMARY_BLOCK_V0 = 216;
const SUMMARY_BLOCK_V1 = 240;
const FUNDING_BLOCK_V0 = 58;
const HEARTBEAT_BLOCK = 16;

export interface SbeTrade {
  readonly template: 1;
  readonly timestampUs: number;
  readonly seqNo: number;
  readonly tradeId: string;
  /** 1 BUY, 2 SELL (taker side), other = unknown. */
  readonly side: number;
  readonly price: number;
  readonly size: number;
  readonly createdAtUs: number;
  /** 1 FILL, 2 LIQUIDATION, 3 UNWIND_TRANSFER, 4 SETTLE_MARKET, 5 RPI, 6 BLOCK_TRADE. */
  readonly tradeType: number;
  readonly market: string;
}

export interface SbeMarketSummary {
  readonly template: 4;
  readonly timestampUs: number;
  readonly seqNo: number;
  readonly markPrice: number | null;
  readonly indexPrice: number | null;
  readonly lastPrice: number | null;
  readonly openInterest: number | null;
  readonly fundingRate: number | null;
  readonly bid: number | null;
  readonly ask: number | null;
  readonly markIv: number | null;
  readonly bidIv: number | null;
  readonly askIv: number | null;
  readonly delta: number | null;
  readonly gamma: number | null;
  readonly vega: number | null;
  readonly theta: number | null;
  readonly futureFundingRate: number | null;
  /** Schema version >= 1 only. */
  readonly forwardRate: number | null;
  readonly market: string;
}

export interface SbeFundingData {
  readonly template: 5;
  readonly timestampUs: number;
  readonly seqNo: number;
  readonly fundingRate: number | null;
  readonly fundingIndex: number | null;
  readonly createdAtUs: number;
  readonly fundingRate8h: number | null;
  readonly fundingPeriodHours: number;
  readonly market: string;
}

export interface SbeControl {
  readonly template: 40 | 41;
  readonly timestampUs: number;
}

export type SbeMessage = SbeTrade | SbeMarketSummary | SbeFundingData | SbeControl;
export type SbeResult =
  { readonly ok: true; readonly message: SbeMessage } | { readonly ok: false; readonly reason: string; readonly template: number | null };

const TWO32 = 4294967296;

/** int64 LE at `off` as a JS number (exact below 2^53); null for the INT64_MIN null sentinel. */
function i64(b: Uint8Array, off: number): number | null {
  const lo = (b[off]! | (b[off + 1]! << 8) | (b[off + 2]! << 16)) + b[off + 3]! * 16777216;
  const hi = b[off + 4]! | (b[off + 5]! << 8) | (b[off + 6]! << 16) | (b[off + 7]! << 24);
  if (hi === -2147483648 && lo === 0) return null;
  return hi * TWO32 + lo;
}

/** Fixed point ×1e-8; division by a power of ten gives the double nearest the decimal. */
function f8(b: Uint8Array, off: number): number | null {
  const v = i64(b, off);
  return v === null ? null : v / 1e8;
}

function u16(b: Uint8Array, off: number): number {
  return b[off]! | (b[off + 1]! << 8);
}

const decoder = new TextDecoder('utf-8', { fatal: true });

/** 1-byte-length var-string at `off`, or null when it runs past the end. */
function varString(b: Uint8Array, off: number): string | null {
  if (off >= b.length) return null;
  const end = off + 1 + b[off]!;
  if (end > b.length) return null;
  try {
    return decoder.decode(b.subarray(off + 1, end));
  } catch {
    return null;
  }
}

export function decodeSbe(frame: Uint8Array): SbeResult {
  if (frame.length < HEADER) return { ok: false, reason: `sbe frame too short: ${frame.length} bytes`, template: null };
  const blockLength = u16(frame, 0);
  const template = u16(frame, 2);
  const schema = u16(frame, 4);
  if (schema !== SBE_SCHEMA_ID) return { ok: false, reason: `sbe schema id ${schema}, expected ${SBE_SCHEMA_ID}`, template };
  if (HEADER + blockLength > frame.length)
    return { ok: false, reason: `sbe truncated: blockLength ${blockLength}, payload ${frame.length - HEADER} bytes`, template };
  const b = frame;
  const p = HEADER;
  const tail = (): string | null => varString(b, p + blockLength);
  const need = (n: number): SbeResult | null =>
    blockLength < n ? { ok: false, reason: `sbe template ${template}: blockLength ${blockLength} < ${n}`, template } : null;
  switch (template) {
    case TEMPLATE.trade: {
      const short = need(TRADE_BLOCK);
      if (short !== null) return short;
      const market = tail();
      const ts = i64(b, p);
      const created = i64(b, p + 41);
      const price = f8(b, p + 25);
      const size = f8(b, p + 33);
      const id = i64(b, p + 16);
      if (market === null) return { ok: false, reason: 'sbe truncated: market string', template };
      if (ts === null || created === null || price === null || size === null || id === null)
        return { ok: false, reason: 'sbe trade with null required field', template };
      return {
        ok: true,
        message: {
          template: 1,
          timestampUs: ts,
          seqNo: i64(b, p + 8) ?? 0,
          tradeId: String(id),
          side: b[p + 24]!,
          price,
          size,
          createdAtUs: created,
          tradeType: b[p + 49]!,
          market,
        },
      };
    }
    case TEMPLATE.marketSummary: {
      const short = need(SUMMARY_BLOCK_V0);
      if (short !== null) return short;
      const market = tail();
      const ts = i64(b, p);
      if (market === null) return { ok: false, reason: 'sbe truncated: market string', template };
      if (ts === null) return { ok: false, reason: 'sbe market summary without timestamp', template };
      const q = (i: number): number | null => f8(b, p + 8 * i);
      return {
        ok: true,
        message: {
          template: 4,
          timestampUs: ts,
          seqNo: i64(b, p + 8) ?? 0,
          markPrice: q(2),
          indexPrice: q(3),
          lastPrice: q(4),
          openInterest: q(6),
          fundingRate: q(7),
          bid: q(8),
          ask: q(9),
          markIv: q(12),
          bidIv: q(13),
          askIv: q(14),
          delta: q(16),
          gamma: q(17),
          vega: q(18),
          theta: q(19),
          futureFundingRate: q(23),
          forwardRate: blockLength >= SUMMARY_BLOCK_V1 ? q(27) : null,
          market,
        },
      };
    }
    case TEMPLATE.fundingData: {
      const short = need(FUNDING_BLOCK_V0);
      if (short !== null) return short;
      const market = tail();
      const ts = i64(b, p);
      if (market === null) return { ok: false, reason: 'sbe truncated: market string', template };
      if (ts === null) return { ok: false, reason: 'sbe funding data without timestamp', template };
      return {
        ok: true,
        message: {
          template: 5,
          timestampUs: ts,
          seqNo: i64(b, p + 8) ?? 0,
          fundingRate: f8(b, p + 16),
          fundingIndex: f8(b, p + 24),
          createdAtUs: i64(b, p + 32) ?? ts,
          fundingRate8h: f8(b, p + 48),
          fundingPeriodHours: ((b[p + 56]! | (b[p + 57]! << 8)) << 16) >> 16,
          market,
        },
      };
    }
    case TEMPLATE.heartbeat:
    case TEMPLATE.subscribed: {
      const short = need(HEARTBEAT_BLOCK);
      if (short !== null) return short;
      return { ok: true, message: { template, timestampUs: i64(b, p) ?? 0 } };
    }
    default:
      return { ok: false, reason: `sbe unknown templateId ${template}`, template };
  }
}
