/** Creating and seeding the per-connection parser context (no I/O). */
import type { Instrument, MarketEvent, MarketSymbol, Venue } from '#schemas/events.ts';
import type { ParserContext } from './types.ts';

export interface ContextOptions {
  readonly venue: Venue;
  readonly connection: string;
  /** Share one registry between the connections of a venue. */
  readonly instruments?: Map<string, Instrument>;
  readonly indexPrices?: Map<MarketSymbol, number>;
  readonly receivedAt?: number;
}

export function createParserContext(opts: ContextOptions): ParserContext {
  return {
    venue: opts.venue,
    connection: opts.connection,
    receivedAt: opts.receivedAt ?? 0,
    instruments: opts.instruments ?? new Map(),
    indexPrices: opts.indexPrices ?? new Map(),
    tickerState: new Map(),
    nameCache: new Map(),
    seen: new Set(),
  };
}

/** Registry key of a spot pair whose name is also a derivative's (Bybit spot `BTCUSDT` vs the linear perp). */
export function spotKey(name: string): string {
  return `spot:${name}`;
}

/**
 * Puts every Instrument event of `list` into the registry; returns how many were added. Where a venue gives a
 * spot pair and a derivative the same name (Bybit `BTCUSDT`), the derivative owns the name, whatever the order
 * the listings arrive in, and the spot pair is kept under `spotKey(name)`: parsers tell spot from perp trades by
 * the connection, and `connections()` still sees both listings.
 */
export function registerInstruments(ctx: ParserContext, list: readonly MarketEvent[]): number {
  let n = 0;
  for (const e of list) {
    if (e.type !== 'instrument') continue;
    const inst = e.event;
    const held = ctx.instruments.get(inst.instrument);
    if (inst.kind === 'spot' && held !== undefined && held.kind !== 'spot') ctx.instruments.set(spotKey(inst.instrument), inst);
    else {
      if (inst.kind !== 'spot' && held !== undefined && held.kind === 'spot') ctx.instruments.set(spotKey(inst.instrument), held);
      ctx.instruments.set(inst.instrument, inst);
    }
    n++;
  }
  return n;
}

/** The registered instrument, else the venue's name-parsing fallback (cached in ctx.nameCache, not the registry). */
export function lookupInstrument(
  ctx: ParserContext,
  name: string,
  fromName: (name: string, receivedAt: number) => Instrument | null,
): Instrument | null {
  const known = ctx.instruments.get(name);
  if (known !== undefined) return known;
  const cached = ctx.nameCache.get(name);
  if (cached !== undefined) return cached;
  const parsed = fromName(name, ctx.receivedAt);
  if (ctx.nameCache.size > 50_000) ctx.nameCache.clear();
  ctx.nameCache.set(name, parsed);
  return parsed;
}
