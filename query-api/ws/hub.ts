/**
 * Channel registry and fan-out: which sessions listen to which channel, the sequence number of each channel,
 * and one serialization per notification whatever the number of subscribers.
 */
import type { Channel, ChannelKind } from './protocol.ts';
import { notification } from './protocol.ts';
import { wsMetrics } from './metrics.ts';
import { wireFrames } from './frames.ts';
import type { MarketSymbol } from '#schemas/events.ts';

/**
 * Consecutive notifications of one channel, encoded once for every subscriber: each frame's payload (`frames`), their
 * summed length (`bytes`), and the whole run as WebSocket frames on the wire (`wire()`: made on first use, then
 * the same bytes for every subscriber that takes them as they are).
 */
export class FrameRun {
  private wireBytes: Buffer | null = null;

  constructor(
    readonly frames: readonly Buffer[],
    readonly bytes: number,
  ) {}

  wire(): Buffer {
    return (this.wireBytes ??= wireFrames(this.frames));
  }
}

/**
 * What the hub needs of a session: a bounded write of an already encoded text frame (false = the session is gone
 * or was cut off), and of a run of consecutive frames in one socket write (the number written: all of them, or fewer
 * when the session is gone or was cut off on the way). The hub counts messages and bytes once per publish.
 */
export interface Subscriber {
  deliver(frame: Buffer): boolean;
  deliverMany(run: FrameRun): number;
}

interface ChannelState {
  readonly channel: Channel;
  readonly subscribers: Set<Subscriber>;
}

/** Metric label of a channel: kind and symbol (venue filters share their symbol's label). */
const labelOf = (c: Channel): string => `${c.kind}.${c.symbol}`;

/** Called after a session joined a channel (after its acknowledgement is queued), e.g. to send it a snapshot. */
export type SubscribeHook = (channel: Channel, s: Subscriber) => void;

export class FeedHub {
  private readonly channels = new Map<string, ChannelState>();
  private readonly hooks = new Map<ChannelKind, SubscribeHook>();
  /** Sequence of the last notification per channel name; kept after the last unsubscribe (bounded by the channel names). */
  private readonly seqs = new Map<string, number>();

  subscribe(channel: Channel, s: Subscriber): boolean {
    let state = this.channels.get(channel.name);
    if (state === undefined) {
      state = { channel, subscribers: new Set() };
      this.channels.set(channel.name, state);
    }
    if (state.subscribers.has(s)) return false;
    state.subscribers.add(s);
    wsMetrics.subscriptions.inc({ channel: labelOf(channel) });
    const hook = this.hooks.get(channel.kind);
    // After the caller's acknowledgement: the hook runs once the current turn has written it.
    if (hook !== undefined) queueMicrotask(() => hook(channel, s));
    return true;
  }

  /** One hook per channel kind (the chain channel's snapshot on subscribe). */
  onSubscribe(kind: ChannelKind, hook: SubscribeHook): void {
    this.hooks.set(kind, hook);
  }

  /**
   * Sends `dataJson` to one subscriber of `name` with the channel's current sequence number (not incremented: a
   * snapshot that the channel's next notification, seq + 1, continues). False when it is not subscribed.
   */
  sendTo(name: string, s: Subscriber, dataJson: string): boolean {
    const state = this.channels.get(name);
    if (state === undefined || !state.subscribers.has(s)) return false;
    const frame = Buffer.from(notification(name, this.seq(name), dataJson), 'utf8');
    if (!s.deliver(frame)) return false;
    wsMetrics.messages.inc({ kind: state.channel.kind });
    wsMetrics.bytes.inc(frame.length);
    return true;
  }

  unsubscribe(name: string, s: Subscriber): boolean {
    const state = this.channels.get(name);
    if (state === undefined || !state.subscribers.delete(s)) return false;
    wsMetrics.subscriptions.dec({ channel: labelOf(state.channel) });
    if (state.subscribers.size === 0) this.channels.delete(name);
    return true;
  }

  /** Sequence number of the last notification on a channel (0 = none yet). */
  seq(name: string): number {
    return this.seqs.get(name) ?? 0;
  }

  /** Channels of a kind and symbol that have subscribers (e.g. every venue filter of levels.BTCUSDT). */
  active(kind: ChannelKind, symbol: MarketSymbol): readonly Channel[] {
    const out: Channel[] = [];
    for (const s of this.channels.values()) if (s.channel.kind === kind && s.channel.symbol === symbol) out.push(s.channel);
    return out;
  }

  hasSubscribers(name: string): boolean {
    return this.channels.has(name);
  }

  /**
   * Sends `dataJson` to every subscriber of `name` with the channel's next sequence number. `receivedAt`
   * (performance.now() when the bus delivered the event) feeds the fan-out latency histogram.
   */
  publish(name: string, dataJson: string, receivedAt: number): number {
    const state = this.channels.get(name);
    if (state === undefined) return 0;
    const seq = (this.seqs.get(name) ?? 0) + 1;
    this.seqs.set(name, seq);
    // Encoded once for every subscriber. A session cut off during the loop leaves the set as it is visited,
    // which a Set iteration tolerates.
    const frame = Buffer.from(notification(name, seq, dataJson), 'utf8');
    const run = new FrameRun([frame], frame.length);
    let sent = 0;
    for (const s of state.subscribers) sent += s.deliverMany(run);
    if (sent > 0) {
      wsMetrics.messages.inc({ kind: state.channel.kind }, sent);
      wsMetrics.bytes.inc(sent * frame.length);
    }
    wsMetrics.fanoutSeconds.observe({ kind: state.channel.kind }, (performance.now() - receivedAt) / 1000);
    return sent;
  }

  /**
   * `publish` for consecutive notifications of one channel: seqs seq + 1 … seq + n, each encoded once, and every
   * subscriber gets the n frames in one write (Subscriber.deliverMany of one FrameRun). `receivedAt` is that of the oldest one.
   * Returns the frames written, summed over the subscribers.
   */
  publishMany(name: string, dataJsons: readonly string[], receivedAt: number): number {
    const state = this.channels.get(name);
    if (state === undefined || dataJsons.length === 0) return 0;
    let seq = this.seqs.get(name) ?? 0;
    let bytes = 0;
    const frames = dataJsons.map((d) => {
      const frame = Buffer.from(notification(name, ++seq, d), 'utf8');
      bytes += frame.length;
      return frame;
    });
    this.seqs.set(name, seq);
    const run = new FrameRun(frames, bytes);
    let sent = 0;
    let sentBytes = 0;
    for (const s of state.subscribers) {
      const n = s.deliverMany(run);
      sent += n;
      sentBytes += n === frames.length ? bytes : frames.slice(0, n).reduce((b, f) => b + f.length, 0);
    }
    if (sent > 0) {
      wsMetrics.messages.inc({ kind: state.channel.kind }, sent);
      wsMetrics.bytes.inc(sentBytes);
    }
    wsMetrics.fanoutSeconds.observe({ kind: state.channel.kind }, (performance.now() - receivedAt) / 1000);
    return sent;
  }

  /**
   * Drop-and-mark: `count` notifications of a channel that are not sent (too old, ws/trade-backlog.ts) still take
   * their seqs, so a subscriber sees the jump. Nothing happens on a channel without subscribers (its notifications
   * are not counted either).
   */
  markDropped(name: string, count: number): void {
    if (count <= 0 || !this.channels.has(name)) return;
    this.seqs.set(name, (this.seqs.get(name) ?? 0) + count);
  }

  /** Drops a session from every channel. */
  remove(s: Subscriber, names: Iterable<string>): void {
    for (const n of names) this.unsubscribe(n, s);
  }
}
