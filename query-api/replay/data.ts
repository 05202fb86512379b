/**
 * A replay message's data (exactly the live channel's notification data, JSON): text for the channels rendered as the
 * live feed renders them (levels, chain), or bytes already encoded for the tape, rendered from the read's columns
 * into a buffer its source reuses (tape/tape-row-bytes.ts). Pure.
 */

/**
 * Data as UTF-8 JSON bytes[start, end). Valid until the next chunk of the same source is pulled (the source writes
 * that chunk into the same buffer): whoever takes a merged run renders its items before pulling the next run (batch.ts,
 * stream.ts replayLines).
 */
export interface EncodedData {
  readonly bytes: Buffer;
  readonly start: number;
  readonly end: number;
  /** Every byte is ASCII. */
  readonly ascii: boolean;
}

export type ReplayData = string | EncodedData;

/** The data as text. */
export const dataText = (d: ReplayData): string => (typeof d === 'string' ? d : d.bytes.toString('utf8', d.start, d.end));
