/**
 * WebSocket text frames as a server writes them (RFC 6455 section 5.2: FIN set, opcode 1, unmasked, no extension):
 * for replays, whose batches are framed on the replay thread and written to the socket as they are. A session with an
 * extension (permessage-deflate) cannot take such frames: `framePayloads` gives their payloads back to send through
 * `ws`. Pure.
 */

/** The header of an unmasked final text frame of `length` payload bytes. */
export function textFrameHeader(length: number): Uint8Array {
  if (length < 126) return Uint8Array.of(0x81, length);
  if (length < 0x10000) return Uint8Array.of(0x81, 126, length >>> 8, length & 0xff);
  const h = new Uint8Array(10);
  h[0] = 0x81;
  h[1] = 127;
  new DataView(h.buffer).setBigUint64(2, BigInt(length));
  return h;
}

/** Size of the header of a frame of `length` payload bytes. */
export const headerLength = (length: number): number => (length < 126 ? 2 : length < 0x10000 ? 4 : 10);

/** Writes the header of a frame of `length` payload bytes at `at`; returns the offset after it. */
export function writeTextFrameHeader(out: Uint8Array, at: number, length: number): number {
  const h = textFrameHeader(length);
  out.set(h, at);
  return at + h.length;
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
