/**
 * WebSocket text frames as a server writes them (RFC 6455 section 5.2: FIN set, opcode 1, unmasked, no extension):
 * for replays, whose batches are framed on the replay thread, and for the feed's notifications, framed once for every
 * subscriber; both are written to the socket as they are. A session with an
 * extension (permessage-deflate) cannot take such frames: `framePayloads` gives their payloads back to send through
 * `ws`. Pure.
 */

/** The header of an unmasked final text frame of `length` payload bytes. */
export function textFrameHeader(length: number): Uint8Array {
  const h = new Uint8Array(headerLength(length));
  writeTextFrameHeader(h, 0, length);
  return h;
}

/** Size of the header of a frame of `length` payload bytes. */
export const headerLength = (length: number): number => (length < 126 ? 2 : length < 0x10000 ? 4 : 10);

/**
 * Writes the header of a frame of `length` payload bytes at `at` (nothing allocated: a replay frames every message);
 * returns the offset after it.
 */
export function writeTextFrameHeader(out: Uint8Array, at: number, length: number): number {
  out[at] = 0x81;
  if (length < 126) {
    out[at + 1] = length;
    return at + 2;
  }
  if (length < 0x10000) {
    out[at + 1] = 126;
    out[at + 2] = length >>> 8;
    out[at + 3] = length & 0xff;
    return at + 4;
  }
  out[at + 1] = 127;
  // 64-bit big-endian length; a JavaScript length fits in 53 bits.
  const high = Math.floor(length / 2 ** 32);
  for (let k = 0; k < 4; k++) out[at + 2 + k] = (high >>> (24 - 8 * k)) & 0xff;
  for (let k = 0; k < 4; k++) out[at + 6 + k] = (length >>> (24 - 8 * k)) & 0xff;
  return at + 10;
}

/** Consecutive unmasked final text frames of `payloads` in one buffer, as a server writes them to the socket. */
export function wireFrames(payloads: readonly Uint8Array[]): Buffer {
  let total = 0;
  for (const p of payloads) total += headerLength(p.length) + p.length;
  const out = Buffer.allocUnsafe(total);
  let at = 0;
  for (const p of payloads) {
    at = writeTextFrameHeader(out, at, p.length);
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** The payloads of consecutive frames written by this module (views into `frames`). */
export function framePayloads(frames: Uint8Array): Uint8Array[] {
  const out: Uint8Array[] = [];
  const view = new DataView(frames.buffer, frames.byteOffset, frames.byteLength);
  let at = 0;
  while (at < frames.length) {
    if (frames[at] !== 0x81 || frames.length - at < 2) throw new Error(`not an unmasked final text frame at byte ${at}`);
    const short = (frames[at + 1] as number) & 0x7f;
    let length = short;
    let start = at + 2;
    if (short === 126) {
      length = view.getUint16(at + 2);
      start = at + 4;
    } else if (short === 127) {
      length = Number(view.getBigUint64(at + 2));
      start = at + 10;
    }
    if (start + length > frames.length) throw new Error(`frame at byte ${at} runs past the end`);
    out.push(frames.subarray(start, start + length));
    at = start + length;
  }
  return out;
}
