/**
 * The frames a client sends while its connection is still being authenticated and admitted (key look-up,
 * connection cap): kept in arrival order from the upgrade on and handed to the session once it exists, so a
 * client that subscribes right after `open` (or right after its `public/auth` frame) loses nothing. Bounded: a
 * client that floods before its welcome is refused rather than buffered without limit.
 */
import type { WebSocket } from 'ws';
import { MAX_EARLY_FRAMES } from './protocol.ts';

export type Frame = { readonly text: string | null };

export class FrameQueue {
  private readonly frames: Frame[] = [];
  private waiter: ((f: Frame) => void) | null = null;
  private handler: ((f: Frame) => void) | null = null;
  /** True once more than MAX_EARLY_FRAMES arrived before the session took over. */
  overflowed = false;

  constructor(ws: WebSocket) {
    ws.on('message', (data: Buffer, isBinary: boolean) => this.push({ text: isBinary ? null : data.toString('utf8') }));
  }

  private push(f: Frame): void {
    if (this.handler !== null) return this.handler(f);
    if (this.waiter !== null) {
      const w = this.waiter;
      this.waiter = null;
      return w(f);
    }
    if (this.frames.length >= MAX_EARLY_FRAMES) {
      this.overflowed = true;
      return;
    }
    this.frames.push(f);
  }

  /** The next frame (one already held, or the next to arrive); at most one caller waits at a time. */
  next(): Promise<Frame> {
    const held = this.frames.shift();
    if (held !== undefined) return Promise.resolve(held);
    return new Promise((resolve) => (this.waiter = resolve));
  }

  /** From now on every frame goes to `handler`: first the held ones, in order. */
  handOver(handler: (f: Frame) => void): void {
    this.waiter = null;
    for (const f of this.frames.splice(0)) handler(f);
    this.handler = handler;
  }
}
