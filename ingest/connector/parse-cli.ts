/**
 * Pure core of `gex parse --venue V`: raw frames in (one per line), normalized events out as JSON lines,
 * dead-letter reasons to the error writer. Lines holding a REST instrument-listing response (Deribit
 * get_instruments, Bybit instruments-info, OKX public/instruments, Binance exchangeInfo) seed the instrument
 * registry and are echoed as `instrument` events; without them the venue's name-parsing fallback is used.
 */
import { SYMBOLS, VENUES } from '#schemas/events.ts';
import type { Venue } from '#schemas/events.ts';
import { createParserContext, registerInstruments } from './context.ts';
import { createConnector } from '../venues/registry.ts';
import type { VenueUrls } from './types.ts';

export interface ParseFramesOptions {
  /** Connection id given to the parser ('spot' makes Bybit/Binance trades spot trades). Default 'public'. */
  readonly connection?: string;
  /** Receive-time source; default Date.now. */
  readonly now?: () => number;
  readonly urls?: VenueUrls;
}

export interface ParseFramesSummary {
  readonly frames: number;
  readonly events: number;
  readonly ignored: number;
  readonly deadLetters: number;
}

export async function parseFrames(
  venue: string,
  lines: AsyncIterable<string> | Iterable<string>,
  writeEvent: (jsonLine: string) => void,
  writeError: (line: string) => void,
  opts: ParseFramesOptions = {},
): Promise<ParseFramesSummary> {
  if (!(VENUES as readonly string[]).includes(venue)) throw new Error(`no connector for venue '${venue}'`);
  const spec = createConnector(venue as Venue, opts.urls ?? {});
  const ctx = createParserContext({ venue: spec.venue, connection: opts.connection ?? 'public' });
  const listings = spec.instrumentRequests(SYMBOLS);
  const now = opts.now ?? Date.now;
  let frames = 0;
  let events = 0;
  let ignored = 0;
  let deadLetters = 0;
  let lineNo = 0;
  for await (const raw of lines) {
    lineNo++;
    const line = raw.trim();
    if (line === '') continue;
    frames++;
    ctx.receivedAt = now();
    const r = spec.parse(line, ctx);
    if (r.outcome === 'events') {
      for (const e of r.events) writeEvent(JSON.stringify(e));
      events += r.events.length;
      continue;
    }
    if (r.outcome === 'ignored') {
      ignored++;
      continue;
    }
    const listed = listings.map((l) => l.parse(line, ctx)).find((x) => x.ok && x.events.length > 0);
    if (listed !== undefined && listed.ok) {
      registerInstruments(ctx, listed.events);
      for (const e of listed.events) writeEvent(JSON.stringify(e));
      events += listed.events.length;
      continue;
    }
    deadLetters++;
    writeError(`line ${lineNo}: ${r.reason}${r.channel === '' ? '' : ` [${r.channel}]`}`);
  }
  return { frames, events, ignored, deadLetters };
}
